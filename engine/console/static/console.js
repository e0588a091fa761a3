// hookproof console: reads the daemon's public JSON API with the token entered once.
// No framework, no build step, nothing from another origin. Data is put in the page with
// textContent only (never as HTML).
"use strict";

const TOKEN_KEY = "hookproof.token";
// Delivery ledger states: the subsets the table in projections/ledger.py names (SUBSETS);
// tests/delivery/test_ledger_names.py holds every list here to it.
const OPEN = new Set(["PLANNED", "DISPATCHING", "RETRYABLE", "UNKNOWN_TRANSPORT"]);
const REPLAYABLE = new Set(["DEAD_LETTER", "QUARANTINED"]);
const SKIPPABLE = new Set(["DEAD_LETTER"]);
let who = null;
let shownDelivery = null;

function $(sel, root) { return (root || document).querySelector(sel); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else if (k === "onclick") node.addEventListener("click", v);
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function text(v) { return v === null || v === undefined || v === "" ? "-" : String(v); }
function short(iso) { return iso ? String(iso).replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "Z") : "-"; }

function token() { return sessionStorage.getItem(TOKEN_KEY); }

async function api(method, path, payload) {
  const headers = { "Authorization": "Bearer " + token(), "Accept": "application/json" };
  const init = { method, headers, credentials: "omit", cache: "no-store" };
  if (payload !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(payload);
  }
  const resp = await fetch(path, init);
  let body = null;
  const type = resp.headers.get("Content-Type") || "";
  if (type.includes("json")) body = await resp.json();
  return { status: resp.status, body };
}

function problemText(r) {
  if (r.body && r.body.code) return `${r.status} ${r.body.code}: ${r.body.detail || r.body.title || ""}`;
  return `HTTP ${r.status}`;
}

function setStatus(msg) { $("#status").textContent = msg; }

function note(section, msg) { $(`#${section} .note`).textContent = msg || ""; }

function fill(tbody, rows) { tbody.replaceChildren(...rows); }

function replayLabel() { return who && who.kind === "portal" ? "Retry" : "Replay"; }

function stateBadge(state) {
  return el("span", { class: "badge s-" + String(state).toLowerCase(), "data-state": state }, stateWord(state));
}

// -- login -----------------------------------------------------------------------------------

const LINK_KEY = "hookproof.portal-link";

// A portal link that does not (or no longer) work: the customer's page, never the token form.
function linkEnded() {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const id of ["login", "main", "nav", "forget"]) $("#" + id).hidden = true;
  $("#link-ended").hidden = false;
  $("#title").textContent = "Webhook endpoints";
  document.title = "This link has ended";
}

// Opened as a portal page (a #portal= link, now or earlier in this tab, or /portal/{tenant}).
function portalPage() {
  return sessionStorage.getItem(LINK_KEY) === "1" || location.pathname.startsWith("/portal/");
}

async function login() {
  const r = await api("GET", "/v1/whoami");
  if (r.status !== 200) {
    if (portalPage()) { linkEnded(); return; }
    sessionStorage.removeItem(TOKEN_KEY);
    $("#login-error").textContent = "Token refused: " + problemText(r);
    $("#login").hidden = false;
    $("#main").hidden = true;
    $("#nav").hidden = true;
    $("#forget").hidden = true;
    return;
  }
  who = r.body;
  $("#login-error").textContent = "";
  $("#login").hidden = true;
  $("#main").hidden = false;
  $("#nav").hidden = false;
  $("#forget").hidden = false;
  $("#who").textContent = who.kind === "operator" ? "operator" : "tenant " + who.tenantId;
  for (const li of document.querySelectorAll("[data-operator]")) li.hidden = who.kind !== "operator";
  if (who.kind === "portal") await portalEnter(who);  // portal.js: the consumer's own view
  await route();  // views.js: the view the address names
}

function renderTimeline(ol, r) {
  if (r.status !== 200) { ol.replaceChildren(el("li", { class: "error" }, problemText(r))); return; }
  ol.replaceChildren(...r.body.entries.map((e) => el("li", {},
    el("span", { class: "when" }, short(e.recordedAt)), " ",
    el("code", {}, e.type), " ",
    el("span", {}, e.outcome), " ",
    el("span", { class: "muted" }, `[${e.state}; ${e.evidence}; by ${text(e.actor)}; #${e.position}]`),
  )));
}

// -- one delivery ----------------------------------------------------------------------------

function ladder(view, sub) {
  const verified = sub && sub.verifiedGeneration !== null && sub.verifiedGeneration >= view.generation;
  const accepted = view.evidence.endpoint === "ENDPOINT_ACCEPTED";
  const app = view.evidence.application;
  const rungs = [
    ["verified", "Endpoint verified (challenge passed for this generation)",
      sub ? (verified ? "yes" : "no") : "unknown"],
    ["accepted", "Endpoint accepted (a 2xx to a signed attempt)", accepted ? "yes" : "no"],
    ["application", "Application confirmed (signed receipt)",
      app === "CONFIRMED" ? "yes" : app === "UNOBSERVABLE" ? "UNOBSERVABLE" : "pending"],
  ];
  return rungs.map(([key, label, value]) => el("li", { class: "rung r-" + value.toLowerCase(), "data-rung": key, "data-value": value },
    el("span", { class: "mark" }, value === "yes" ? "✔" : value === "UNOBSERVABLE" ? "?" : "·"), " ",
    label, ": ", el("strong", {}, value)));
}

// An answer framed by the connection's end that ended without TLS close_notify: the status
// stands, the body may be incomplete (issue 32, point 6).
function truncatedMark() {
  return el("span", {
    class: "badge truncated", "data-truncated": "true",
    title: "The body ended with the connection, without TLS close_notify: it may be incomplete",
  }, "body truncated");
}

function kvRows(pairs) {
  return pairs.map(([k, v]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, v === null ? "(not recorded)" : v)));
}

// What one attempt sent (method, target, headers: rebuilt by the engine, signatures redacted;
// the body is the delivery's, shown once below) and what came back: the answer's status,
// headers and the stored excerpt of its body (bounded and redacted when it was recorded).
function attemptDetail(a, body) {
  const r = a.response;
  const q = a.request;
  const rows = r ? kvRows(r.headers) : [];
  return el("details", { class: "attempt-detail", "data-attempt": a.attempt },
    el("summary", {}, `Attempt ${a.attempt}: ${text(a.outcome)}${a.status ? ", HTTP " + a.status : ""}`),
    el("p", { class: "muted" }, `sent to ${text(a.endpoint)} signed with key ${text(a.keyId)} (${text(a.signatureAlgorithm)})`),
    q ? el("div", { class: "attempt-request" },
      el("h4", {}, "Request"),
      el("p", { class: "request-line" }, el("code", {}, `${q.method || "PUBLISH"} ${q.target}`)),
      el("table", { class: "kv request-headers" }, el("tbody", {}, ...kvRows(q.headers))),
      el("p", { class: "muted" }, body && !body.archived
        ? `Body: the request body below (${body.bytes} bytes), the same for every attempt.`
        : "Body: no longer stored (archived)."))
      : null,
    r ? el("div", {},
      el("h4", {}, "Response headers"),
      el("table", { class: "kv" }, el("tbody", {}, ...rows)),
      el("h4", {}, `Response body (${r.bodyBytes} bytes${r.excerptTruncated ? ", first 2 KiB shown" : ""})`),
      el("pre", { class: "excerpt" }, r.excerpt || "(empty)"))
      : el("p", { class: "muted" }, "No response was recorded for this attempt."));
}

async function showDelivery(id) {
  shownDelivery = id;
  const r = await api("GET", "/v1/deliveries/" + encodeURIComponent(id));
  if (r.status !== 200) {
    $("#delivery .did").textContent = id;
    $("#delivery-state").textContent = problemText(r);
    $("#ladder").replaceChildren();
    fill($("#attempts tbody"), []);
    $("#attempt-details").replaceChildren();
    $("#request-body").textContent = "";
    $("#delivery-actions").replaceChildren();
    $("#delivery-timeline").replaceChildren();
    return null;
  }
  const v = r.body;
  const [sub, tl] = await Promise.all([
    api("GET", "/v1/subscriptions/" + encodeURIComponent(v.subscriptionId)),
    api("GET", "/v1/deliveries/" + encodeURIComponent(id) + "/timeline"),
  ]);
  if (shownDelivery !== id) return v;
  $("#delivery .did").textContent = id;
  $("#delivery-state").textContent = stateWord(v.state);
  $("#delivery-state").dataset.state = v.state;
  $("#delivery-test").hidden = !v.test;
  $("#delivery-event").textContent = v.eventId;
  $("#delivery-endpoint").textContent = v.endpoint;
  $("#delivery-endpoint").href = "#/endpoint/" + encodeURIComponent(v.subscriptionId);
  $("#delivery-owner").textContent = text(v.owner);
  $("#ladder").replaceChildren(...ladder(v, sub.status === 200 ? sub.body : null));
  fill($("#attempts tbody"), v.attempts.map((a) => el("tr", { "data-attempt": a.attempt },
    el("td", {}, a.attempt),
    el("td", {}, a.outcome),
    el("td", { class: "answer" }, a.broker ? brokerText(a.broker) : text(a.status), a.bodyTruncated ? truncatedMark() : null),
    el("td", {}, text(a.code)),
    el("td", {}, text(a.generation)),
    el("td", {}, text(a.keyId)),
    el("td", {}, text(a.peerAddress)),
    el("td", {}, text(a.durationMs)),
    el("td", {}, short(a.admittedAt)),
  )));
  $("#attempt-details").replaceChildren(...v.attempts.map((a) => attemptDetail(a, v.requestBody)));
  const rb = v.requestBody;
  $("#request-body").textContent = rb && rb.text !== null ? rb.text + (rb.truncated ? "\n[first 64 KiB shown]" : "") : "(no longer stored)";
  $("#request-body").dataset.bytes = rb ? String(rb.bytes) : "";
  const actions = [];
  if (REPLAYABLE.has(v.state)) {
    actions.push(el("button", { type: "button", "data-replay": id, onclick: () => replay(id) }, replayLabel()));
  }
  if (SKIPPABLE.has(v.state)) {
    actions.push(el("button", { type: "button", "data-skip": id, onclick: () => skip(id) }, "Skip"));
  }
  if (v.ordering) {
    actions.push(el("span", { class: "muted" }, ` ordered: aggregate ${v.ordering.aggregateId} version ${v.ordering.aggregateVersion}`));
  }
  if (v.deadLetter) actions.push(el("span", { class: "muted" }, ` dead letter: ${v.deadLetter.reason} (owner ${v.deadLetter.owner})`));
  $("#delivery-actions").replaceChildren(...actions);
  renderTimeline($("#delivery-timeline"), tl);
  return v;
}

async function replay(id) {
  const r = await api("POST", "/v1/deliveries/" + encodeURIComponent(id) + "/replay");
  if (r.status !== 202) { setStatus("replay refused: " + problemText(r)); return; }
  setStatus("replay requested for " + id);
  await loadDeadLetters();
  const target = "#/delivery/" + encodeURIComponent(id);
  if (location.hash !== target) { location.hash = target; await new Promise((ok) => setTimeout(ok, 0)); }
  let v = await showDelivery(id);
  // follow it until the dispatcher has taken it somewhere (or give up after ~30 s)
  for (let i = 0; i < 60 && v && OPEN.has(v.state) && shownDelivery === id; i++) {
    await new Promise((ok) => setTimeout(ok, 500));
    v = await showDelivery(id);
  }
  await loadDeadLetters();
}

async function skip(id) {
  const r = await api("POST", "/v1/deliveries/" + encodeURIComponent(id) + "/skip");
  if (r.status !== 200) { setStatus("skip refused: " + problemText(r)); return; }
  setStatus("skipped " + id);
  await loadDeadLetters();
  await showDelivery(id);
}

// -- dead letters, gates, rollouts -----------------------------------------------------------

async function loadDeadLetters() {
  const tbody = $("#dead-letters tbody");
  if (who.kind === "operator") {
    note("dead-letters", "Dead letters belong to tenants: enter a tenant token to see them.");
    fill(tbody, []);
    return;
  }
  const r = await api("GET", "/v1/dead-letters");
  if (r.status !== 200) { note("dead-letters", problemText(r)); return; }
  note("dead-letters", r.body.items.length ? "" : "No dead letters.");
  fill(tbody, r.body.items.map((d) => el("tr", { "data-id": d.deliveryId },
    el("td", {}, el("a", { href: "#/delivery/" + encodeURIComponent(d.deliveryId) }, d.deliveryId)),
    el("td", {}, el("a", { href: "#/endpoint/" + encodeURIComponent(d.subscriptionId) }, d.subscriptionId)),
    el("td", {}, text(d.owner)),
    el("td", {}, text(d.reason)),
    el("td", {}, text(d.attempt)),
    el("td", {}, short(d.deadSince)),
    el("td", {}, el("button", { type: "button", "data-replay": d.deliveryId, onclick: () => replay(d.deliveryId) }, replayLabel())),
  )));
}

// Recover a time range: follows nextSince for a few pages, then says where to go on.
const RECOVER_PAGES = 20;

async function recoverRange() {
  const out = $("#recover-result");
  const sid = $("#recover-subscription").value.trim();
  let since = $("#recover-since").value.trim();
  const until = $("#recover-until").value.trim();
  if (!sid || !since) {
    out.className = "error";
    out.textContent = "A subscription id and since are needed.";
    return;
  }
  const button = $("#recover");
  button.disabled = true;
  out.className = "muted";
  out.textContent = "recovering...";
  let total = 0;
  let next = null;
  try {
    for (let page = 0; page < RECOVER_PAGES; page++) {
      const body = { since };
      if (until) body.until = until;
      const r = await api("POST", "/v1/subscriptions/" + encodeURIComponent(sid) + "/recover", body);
      if (r.status !== 202) {
        out.className = "error";
        out.textContent = (total ? `recovered ${total}, then ` : "") + "recover refused: " + problemText(r);
        return;
      }
      total += r.body.recovered;
      next = r.body.nextSince || null;
      if (!next) break;
      since = next;
    }
    out.className = "";
    out.dataset.recovered = String(total);
    out.textContent = `recovered ${total} deliver${total === 1 ? "y" : "ies"} of ${sid}` +
      (next ? `; more remain from ${next} (since set to it: recover again)` : "");
    if (next) $("#recover-since").value = next;
    setStatus(`recovered ${total} from ${sid}`);
  } finally {
    button.disabled = false;
    await loadDeadLetters();
  }
}

async function loadGates() {
  const tbody = $("#gates tbody");
  if (who.kind !== "operator") {
    note("gates", "The release gates are engine-wide: enter the operator token to see them.");
    fill(tbody, []);
    return;
  }
  const r = await api("GET", "/v1/gates");
  if (r.status === 403) { note("gates", "The release gates are engine-wide: enter the operator token to see them."); fill(tbody, []); return; }
  if (r.status !== 200) { note("gates", problemText(r)); fill(tbody, []); return; }
  note("gates", r.body.ok ? "No gate failed." : "A gate FAILED.");
  fill(tbody, r.body.gates.map((g) => el("tr", { "data-gate": g.gate },
    el("td", {}, g.gate),
    el("td", { class: "gate-" + g.status.replace("/", "").toLowerCase() }, g.status),
    el("td", {}, text(g.value)),
    el("td", {}, g.threshold),
    el("td", {}, g.title),
  )));
}

function rolloutRow(ro) {
  const figures = ["shadow", "internal", "cutover"].filter((k) => ro[k]).map((k) => `${k} ${JSON.stringify(ro[k])}`).join("; ");
  return el("tr", { "data-id": ro.id },
    el("td", {}, ro.id), el("td", {}, text(ro.stage)), el("td", {}, text(ro.percent)),
    el("td", {}, text(ro.state)), el("td", {}, text(ro.pauseReason)), el("td", {}, figures || "-"));
}

async function loadRollouts() {
  const tbody = $("#rollouts tbody");
  if (who.kind !== "operator") {
    note("rollouts", "Rollouts of a signing change are the operator's: enter the operator token to see them.");
    fill(tbody, []);
    return;
  }
  const r = await api("GET", "/v1/rollouts");
  if (r.status === 404 || r.status === 405) { note("rollouts", "This daemon lists no rollouts (look one up by id below)."); fill(tbody, []); return; }
  if (r.status === 401 || r.status === 403) { note("rollouts", "Rollouts need the operator token."); fill(tbody, []); return; }
  if (r.status !== 200) { note("rollouts", problemText(r)); return; }
  const items = Array.isArray(r.body) ? r.body : (r.body.items || r.body.rollouts || []);
  note("rollouts", items.length ? "" : "No rollouts.");
  fill(tbody, items.map(rolloutRow));
}

async function showRollout(id) {
  const r = await api("GET", "/v1/rollouts/" + encodeURIComponent(id));
  if (r.status !== 200) { note("rollouts", problemText(r)); return; }
  note("rollouts", "");
  const tbody = $("#rollouts tbody");
  const old = tbody.querySelector(`tr[data-id="${CSS.escape(r.body.id)}"]`);
  if (old) old.replaceWith(rolloutRow(r.body)); else tbody.append(rolloutRow(r.body));
}

// -- wiring ----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("#use-token").addEventListener("click", () => {
    const value = $("#token").value.trim();
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    $("#token").value = "";
    login();
  });
  $("#token").addEventListener("keydown", (e) => { if (e.key === "Enter") $("#use-token").click(); });
  $("#forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    if (portalPage()) { linkEnded(); return; }
    location.hash = "";
    location.reload();
  });
  $("#recover").addEventListener("click", () => { recoverRange(); });
  $("#show-rollout").addEventListener("click", () => {
    const id = $("#rollout-id").value.trim();
    if (id) showRollout(id);
  });
  // A portal link carries its token in the fragment (never sent to a server): take it into
  // this tab's session storage and drop it from the address bar and history.
  // A link that is not one (cut, mangled) is an ended link to its customer.
  if (location.hash.startsWith("#portal=")) {
    const link = location.hash.match(/^#portal=([A-Za-z0-9_-]{1,200})$/);
    sessionStorage.setItem(LINK_KEY, "1");
    history.replaceState(null, "", location.pathname + location.search + "#/endpoints");
    if (!link) { linkEnded(); return; }
    sessionStorage.setItem(TOKEN_KEY, link[1]);
  }
  if (token()) login();
  else if (portalPage()) linkEnded();
  else $("#login").hidden = false;
});

// What a broker returned to one attempt: confirmed/returned, or stream and sequence.
function brokerText(b) {
  const parts = [text(b.type)];
  if (b.amqp) {
    const flags = ["confirmed", "returned", "nacked"].filter((k) => b.amqp[k]);
    parts.push(flags.length ? flags.join(",") : "no confirmation");
  }
  if (b.jetstream) {
    parts.push(`stream ${text(b.jetstream.stream)} seq ${text(b.jetstream.seq)}${b.jetstream.duplicate ? " duplicate" : ""}`);
  }
  if (!b.amqp && !b.jetstream) parts.push(b.published ? "published, no confirmation" : "not published");
  return parts.join(" ");
}
