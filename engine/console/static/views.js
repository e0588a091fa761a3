// hookproof console: the views and the address that names them (hash routing, so back and
// forward work and every view has a URL): #/endpoints, #/endpoint/<id>, #/deliveries?<filters>,
// #/delivery/<id>, #/event-types, #/dead-letters, #/gates, #/rollouts.
// Data goes into the page with textContent only.
"use strict";

const VIEWS = ["endpoints", "endpoint", "deliveries", "delivery", "event-types", "dead-letters", "gates", "rollouts"];
const OPERATOR_VIEWS = new Set(["gates", "rollouts"]);  // the others are a tenant's (or portal's)
const LOG_FILTERS = ["subscriptionId", "eventType", "state", "evidence", "since", "until", "eventId", "deliveryId", "idPrefix", "cursor"];
let endpoints = [];  // the caller's subscriptions (first page), for names and selects

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query] = raw.split("?", 2);
  const [view, arg] = path.split("/", 2);
  return { view: VIEWS.includes(view) ? view : "", arg: arg ? decodeURIComponent(arg) : "", params: new URLSearchParams(query || "") };
}

async function route() {
  if (!who) return;
  document.body.dataset.rendered = "";
  let { view, arg, params } = parseHash();
  if (!view || OPERATOR_VIEWS.has(view) !== (who.kind === "operator")) {
    view = who.kind === "operator" ? "gates" : "endpoints";
    history.replaceState(null, "", location.pathname + location.search + "#/" + view);
  }
  for (const name of VIEWS) $("#view-" + name).hidden = name !== view;
  for (const a of document.querySelectorAll("#nav a")) {
    const current = a.dataset.view === view || (view === "delivery" && a.dataset.view === "deliveries") ||
      (view === "endpoint" && a.dataset.view === "endpoints");
    if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  setStatus("loading...");
  if (view === "endpoints") await loadSubscriptions();
  else if (view === "endpoint") await showEndpoint(arg);
  else if (view === "deliveries") await loadLog(params);
  else if (view === "delivery") await showDelivery(arg);
  else if (view === "event-types") await loadCatalogue();
  else if (view === "dead-letters") await loadDeadLetters();
  else if (view === "gates") await loadGates();
  else if (view === "rollouts") await loadRollouts();
  setStatus("updated " + new Date().toISOString().replace(/\.\d+Z$/, "Z"));
  document.body.dataset.rendered = location.hash;
  const heading = $(`#view-${view} h2`);
  if (heading && document.activeElement && document.activeElement.closest("#nav, .view")) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
}

function go(hash) { if (location.hash !== hash) location.hash = hash; else route(); }

// -- endpoints -------------------------------------------------------------------------------

async function fetchEndpoints() {
  if (who.kind === "operator") { endpoints = []; return null; }
  const r = await api("GET", "/v1/subscriptions");
  if (r.status !== 200) return r;
  endpoints = r.body.items;
  // the portal names an endpoint by its address alone; the console adds its id
  const label = (s) => who.kind === "portal" ? text(s.endpoint) : `${text(s.endpoint)} (${s.id})`;
  const recover = $("#recover-subscription");
  const picked = recover.value;
  recover.replaceChildren(...endpoints.map((s) => el("option", { value: s.id }, label(s))));
  if (picked) recover.value = picked;
  const select = $("#f-subscription");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "any"),
    ...endpoints.map((s) => el("option", { value: s.id }, label(s))));
  select.value = chosen;
  return r;
}

function endpointColumns() {
  return who.kind === "portal"
    ? ["Endpoint", "Status", "Event types", "Last delivery", "Last 24 hours", ""]
    : ["id", "state", "generation", "verified", "profile", "algorithm", "ordering", "rate limit", "topics", "endpoint", "challenge", "last 24 h", ""];
}

async function loadSubscriptions() {
  const tbody = $("#subscriptions tbody");
  $("#subscriptions thead tr").replaceChildren(...endpointColumns().map((c) =>
    el("th", { scope: "col" }, c || el("span", { class: "visually-hidden" }, "actions"))));
  if (who.kind === "operator") {
    note("subscriptions", "Subscriptions belong to tenants: enter a tenant token to see them.");
    fill(tbody, []);
    return;
  }
  const r = await fetchEndpoints();
  if (r.status !== 200) { note("subscriptions", problemText(r)); return; }
  note("subscriptions", endpoints.length ? "" : "No endpoints yet.");
  const charts = endpoints.map((s) => attemptChart(s.id));  // portal.js: drawn below at once
  const link = (s) => el("a", { href: "#/endpoint/" + encodeURIComponent(s.id) }, who.kind === "portal" ? s.endpoint : s.id);
  const rotate = (s) => s.signatureAlgorithm === "hmac-sha256" && s.state !== "REVOKED"
    ? el("button", { type: "button", "data-rotate": s.id, onclick: () => rotateSecret(s.id) }, "Rotate secret") : null;
  fill(tbody, endpoints.map((s, i) => who.kind === "portal"
    ? el("tr", { "data-id": s.id },
      el("td", { class: "endpoint" }, link(s)),
      el("td", { class: "state" }, stateBadge(s.state)),
      el("td", {}, (s.topics || []).join(", ")),
      el("td", { class: "last-delivery", "data-last": s.id }, "-"),
      el("td", { class: "chart-cell" }, charts[i]),
      el("td", { class: "actions" }, rotate(s)))
    : el("tr", { "data-id": s.id },
      el("td", {}, link(s)),
      el("td", { class: "state" }, stateBadge(s.state)),
      el("td", { class: "generation" }, text(s.generation)),
      el("td", {}, text(s.verifiedGeneration)),
      el("td", { class: "profile" }, text(s.signatureProfile || "hookproof.sig.v1")),
      el("td", {}, text(s.signatureAlgorithm)),
      el("td", {}, text(s.ordering || "none")),
      el("td", { class: "rate-limit" }, rateLimitText(s.rateLimit)),
      el("td", {}, (s.topics || []).join(", ")),
      el("td", { class: "endpoint" }, destinationText(s)),
      el("td", { class: "challenge" }, challengeResult(s)),
      el("td", { class: "chart-cell" }, charts[i]),
      el("td", { class: "actions" }, rotate(s)))));
  await Promise.all([drawCharts(charts), who.kind === "portal" ? lastDeliveries() : null]);
}

// The newest delivery of each endpoint (the portal's "Last delivery": one indexed read each).
async function lastDeliveries() {
  await Promise.all(endpoints.map(async (s) => {
    const r = await api("GET", "/v1/deliveries?limit=1&subscriptionId=" + encodeURIComponent(s.id));
    const cell = document.querySelector(`td[data-last="${CSS.escape(s.id)}"]`);
    if (!cell || r.status !== 200) return;
    const d = r.body.items[0];
    cell.replaceChildren(d ? el("a", { href: "#/delivery/" + encodeURIComponent(d.deliveryId) },
      short(d.createdAt), " ", stateBadge(d.state)) : "none yet");
  }));
}

function challengeResult(s) {
  if (s.verifiedGeneration !== null && s.verifiedGeneration >= s.generation) return "passed (generation " + s.generation + ")";
  if (s.pendingChallenge) return "pending";
  if (s.lastReason) return "failed: " + s.lastReason;
  return "not yet";
}

async function showEndpoint(id) {
  $("#view-endpoint .sid").textContent = who.kind === "portal" ? "" : id;
  const [sub, tl, types] = await Promise.all([
    api("GET", "/v1/subscriptions/" + encodeURIComponent(id)),
    api("GET", "/v1/subscriptions/" + encodeURIComponent(id) + "/timeline"),
    api("GET", "/v1/event-types"),
  ]);
  if (sub.status !== 200) { $("#endpoint-summary").textContent = problemText(sub); return; }
  const s = sub.body;
  if (who.kind === "portal") $("#view-endpoint .sid").textContent = text(s.endpoint);
  $("#endpoint-summary").replaceChildren(el("span", { class: "endpoint" }, s.endpoint), " · ",
    stateBadge(s.state), " · event types ", (s.topics || []).join(", "));
  $("#endpoint-signing").replaceChildren(...signingNote(s));
  $("#endpoint-deliveries").href = "#/deliveries?subscriptionId=" + encodeURIComponent(id);
  const items = types.status === 200 ? (types.body.items || []) : [];
  $("#test-topic").replaceChildren(...items.map((t) => el("option", { value: t.topic }, t.topic)));
  $("#send-test").disabled = !items.length;
  $("#send-test").dataset.sid = id;
  $("#recover-one").dataset.sid = id;
  if (!$("#recover-one-since").value) $("#recover-one-since").value = localPicker(Date.now() - 86400e3, $("#recover-one-since"));
  $("#test-result").textContent = items.length ? "" : "No event type has an example yet.";
  renderTimeline($("#subscription-timeline"), tl);
  await drawBigCharts(id);
}

// -- the delivery log ------------------------------------------------------------------------

function localInput(iso) {  // an RFC 3339 time -> the datetime-local field's value (UTC)
  return iso ? iso.replace(/(:\d\d)(\.\d+)?(Z|[+-]00:00)$/, "$1").slice(0, 16) : "";
}
function fromLocalInput(v) { return v ? v + ":00Z" : ""; }

async function loadLog(params) {
  if (who.kind === "operator") {
    $("#log-error").textContent = "Deliveries belong to tenants: enter a tenant token to see them.";
    fill($("#deliveries tbody"), []);
    return;
  }
  if (!endpoints.length) await fetchEndpoints();
  $("#f-subscription").value = params.get("subscriptionId") || "";
  $("#f-event-type").value = params.get("eventType") || "";
  $("#f-state").value = params.get("state") || "";
  $("#f-evidence").value = params.get("evidence") || "";
  $("#f-since").value = localInput(params.get("since"));
  $("#f-until").value = localInput(params.get("until"));
  $("#f-search").value = params.get("idPrefix") || params.get("eventId") || params.get("deliveryId") || "";
  const query = new URLSearchParams();
  for (const k of LOG_FILTERS) if (params.get(k)) query.set(k, params.get(k));
  query.set("limit", "25");
  const r = await api("GET", "/v1/deliveries?" + query.toString());
  const tbody = $("#deliveries tbody");
  $("#log-empty").textContent = "";
  if (r.status !== 200) {
    $("#log-error").textContent = problemText(r);
    fill(tbody, []);
    $("#page-next").hidden = true;
    return;
  }
  $("#log-error").textContent = "";
  // an empty page is an answer, not an error
  $("#log-empty").textContent = r.body.items.length ? "" : "No deliveries match.";
  const names = new Map(endpoints.map((s) => [s.id, s.endpoint]));
  fill(tbody, r.body.items.map((d) => el("tr", { "data-id": d.deliveryId, "data-state": d.state },
    el("td", {}, el("a", { href: "#/delivery/" + encodeURIComponent(d.deliveryId) }, d.deliveryId)),
    el("td", {}, d.eventId, d.test ? el("span", { class: "badge test", "data-test": "true" }, "test") : null),
    el("td", {}, d.topic),
    el("td", { class: "state" }, stateBadge(d.state)),
    el("td", {}, text(d.attempt)),
    el("td", {}, who.kind === "portal" ? evidenceWords(d.evidence) : d.evidence.endpoint + " / " + d.evidence.application),
    el("td", { class: "endpoint" }, el("a", { href: "#/endpoint/" + encodeURIComponent(d.subscriptionId) },
      names.get(d.subscriptionId) || (who.kind === "portal" ? "an endpoint" : d.subscriptionId))),
    el("td", {}, short(d.createdAt)),
  )));
  const base = new URLSearchParams(params);
  base.delete("cursor");
  $("#page-first").href = "#/deliveries" + (base.toString() ? "?" + base.toString() : "");
  const next = $("#page-next");
  next.hidden = !r.body.nextCursor;
  if (r.body.nextCursor) { base.set("cursor", r.body.nextCursor); next.href = "#/deliveries?" + base.toString(); }
}

function applyFilters(e) {
  if (e) e.preventDefault();
  const q = new URLSearchParams();
  const put = (k, v) => { if (v) q.set(k, v); };
  put("subscriptionId", $("#f-subscription").value);
  put("eventType", $("#f-event-type").value.trim());
  put("state", $("#f-state").value);
  put("evidence", $("#f-evidence").value);
  put("since", fromLocalInput($("#f-since").value));
  put("until", fromLocalInput($("#f-until").value));
  // a whole delivery id names one delivery; anything else is the start of a delivery or event id
  const search = $("#f-search").value.trim();
  if (search) q.set(/^dlv_[0-9a-f]{28}$/.test(search) ? "deliveryId" : "idPrefix", search);
  go("#/deliveries" + (q.toString() ? "?" + q.toString() : ""));
}

document.addEventListener("DOMContentLoaded", () => {
  window.addEventListener("hashchange", () => { route(); });
  $("#log-filters").addEventListener("submit", applyFilters);
  $("#f-clear").addEventListener("click", () => go("#/deliveries"));
  $("#f-state").append(...Object.keys(STATE_WORDS).map((s) => el("option", { value: s }, s)));
});

// a subscription's rateLimit, as text: "20/s, burst 5" or "-"
function rateLimitText(r) { return r ? `${r.perSecond}/s, burst ${r.burst}` : "-"; }

// A broker or relay destination: where it publishes; never a credential (the API has only
// their digest).
function destinationText(s) {
  const d = s.destination;
  if (!d) return text(s.endpoint);
  if (d.type === "relay") return `relay to ${text(s.endpoint)}`;
  const where = d.type === "amqp"
    ? `exchange ${text(d.exchange)} key ${text(d.routingKey)}`
    : `subject ${text(d.subject)} stream ${text(d.stream)}`;
  return `${d.type} ${text(d.url)} ${where}`;
}
