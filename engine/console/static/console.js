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
let freshLink = false;  // this page was opened with a #portal= link (not a reload of one)

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

// This tab's state (the token, whether a portal link opened it). A third-party frame may be
// denied storage (Chromium throws on any access to sessionStorage there): every access goes
// through these three, and without storage the state lives in this page's memory alone.
const memory = new Map();
function load(key) {
  let value = null;
  try { value = window.sessionStorage.getItem(key); } catch (e) { value = null; }
  return value !== null ? value : (memory.has(key) ? memory.get(key) : null);
}
function save(key, value) {
  memory.set(key, value);
  try { window.sessionStorage.setItem(key, value); } catch (e) { /* kept in memory only */ }
}
function drop(key) {
  memory.delete(key);
  try { window.sessionStorage.removeItem(key); } catch (e) { /* kept in memory only */ }
}
// Whether what save() keeps survives a navigation of this tab.
function storageKept() {
  try {
    window.sessionStorage.setItem("hookproof.probe", "1");
    window.sessionStorage.removeItem("hookproof.probe");
    return true;
  } catch (e) { return false; }
}

function token() { return load(TOKEN_KEY); }

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
  drop(TOKEN_KEY);
  for (const id of ["login", "main", "nav", "forget", "closed"]) $("#" + id).hidden = true;
  $("#link-ended").hidden = false;
  $("#title").textContent = "Webhook endpoints";
  document.title = "This link has ended";
}

// Opened as a portal page (a #portal= link, now or earlier in this tab, or /portal/{tenant}).
function portalPage() {
  return load(LINK_KEY) === "1" || location.pathname.startsWith("/portal/");
}

// "Close" in the portal: this page forgets the link's token. A portal token cannot end its own
// session (only the company that made it can), so the page says the link still works. A reload
// of the closed page says the same (CLOSED_KEY keeps the link's expiry, not the token).
const CLOSED_KEY = "hookproof.portal-closed";

function portalClosed(until) {
  save(CLOSED_KEY, until || "");
  drop(TOKEN_KEY);
  who = null;
  for (const id of ["login", "main", "nav", "forget", "link-ended"]) $("#" + id).hidden = true;
  $("#closed-detail").textContent = "This page no longer shows your endpoints. The link you " +
    "opened it with still works" + (until ? " until " + until : " until it expires") +
    ": anyone who has it can open this page until then. To end it sooner, ask the company " +
    "that sent it to you.";
  $("#closed").hidden = false;
  $("#title").textContent = "Webhook endpoints";
  document.title = "You closed this page";
}

async function login() {
  const r = await api("GET", "/v1/whoami");
  if (r.status !== 200) {
    if (portalPage()) { linkEnded(); return; }
    drop(TOKEN_KEY);
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
  // the tenant's own sections (endpoints, deliveries, event types, dead letters) are not the
  // operator's: its token sees none of them
  for (const li of document.querySelectorAll("[data-tenant]")) li.hidden = who.kind === "operator";
  if (who.kind === "portal" && await portalEnter(who)) return;  // portal.js; true: it moved
  await route();  // views.js: the view the address names
}

function renderTimeline(ol, r) {
  if (r.status !== 200) { ol.replaceChildren(el("li", { class: "error" }, problemText(r))); return; }
  if (who.kind === "portal") {  // portal.js: what happened, in the customer's words
    ol.replaceChildren(...r.body.entries.map((e) => el("li", {},
      el("span", { class: "when" }, short(e.recordedAt)), " ", timelineWords(e))));
    return;
  }
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
  const portal = who.kind === "portal";
  const rungs = [
    ["verified", portal ? "Endpoint verified (it passed the address check)"
      : "Endpoint verified (challenge passed for this generation)",
    sub ? (verified ? "yes" : "no") : "unknown"],
    ["accepted", "Endpoint accepted (a 2xx to a signed attempt)", accepted ? "yes" : "no"],
    ["application", "Application confirmed (signed receipt)",
      app === "CONFIRMED" ? "yes" : app === "UNOBSERVABLE" ? "UNOBSERVABLE" : "pending"],
  ];
  const shown = (value) => portal && value === "UNOBSERVABLE" ? "cannot be seen" : value;
  return rungs.map(([key, label, value]) => el("li", { class: "rung r-" + value.toLowerCase(), "data-rung": key, "data-value": value },
    el("span", { class: "mark" }, value === "yes" ? "✔" : value === "UNOBSERVABLE" ? "?" : "·"), " ",
    label, ": ", el("strong", {}, shown(value))));
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
    el("summary", {}, `Attempt ${a.attempt}: ${stateWord(a.outcome)}${a.status ? ", HTTP " + a.status : ""}`),
    el("p", { class: "muted" }, who.kind === "portal"
      ? `sent to ${text(a.endpoint)}, signed with ${signedWith(a.signatureAlgorithm)}`
      : `sent to ${text(a.endpoint)} signed with key ${text(a.keyId)} (${text(a.signatureAlgorithm)})`),
    q ? el("div", { class: "attempt-request" },
      el("h4", {}, "Request"),
      who.kind === "portal" ? el("p", { class: "muted" },
        "The headers exactly as your endpoint received them (the signature's values hidden); " +
        "the signature covers the Webhook- headers, so check it with them as they are.") : null,
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

// The attempts table's columns: the portal's leave out the engine's generation and key id.
function attemptColumns() {
  return who.kind === "portal"
    ? ["#", "outcome", "answer", "reason", "from address", "ms", "sent"]
    : ["#", "outcome", "status", "code", "generation", "key", "peer", "ms", "admitted"];
}

function attemptRow(a) {
  const answer = el("td", { class: "answer" }, a.broker ? brokerText(a.broker) : text(a.status), a.bodyTruncated ? truncatedMark() : null);
  if (who.kind === "portal") {
    return el("tr", { "data-attempt": a.attempt },
      el("td", {}, a.attempt), el("td", {}, stateWord(a.outcome)), answer,
      el("td", {}, a.code ? humanWords(a.code) : "-"), el("td", {}, text(a.peerAddress)),
      el("td", {}, text(a.durationMs)), el("td", {}, short(a.admittedAt)));
  }
  return el("tr", { "data-attempt": a.attempt },
    el("td", {}, a.attempt),
    el("td", {}, a.outcome),
    answer,
    el("td", {}, text(a.code)),
    el("td", {}, text(a.generation)),
    el("td", {}, text(a.keyId)),
    el("td", {}, text(a.peerAddress)),
    el("td", {}, text(a.durationMs)),
    el("td", {}, short(a.admittedAt)));
}

async function showDelivery(id) {
  shownDelivery = id;
  const r = await api("GET", "/v1/deliveries/" + encodeURIComponent(id));
  if (shownDelivery !== id) return null;
  $("#delivery .did").textContent = id;
  if (r.status !== 200) {  // the refusal alone: nothing of a delivery shown before stays
    $("#delivery-detail").hidden = true;
    $("#delivery-error").textContent = r.status === 404 && who.kind === "portal"
      ? "No such delivery." : problemText(r);
    $("#delivery-error").hidden = false;
    return null;
  }
  const v = r.body;
  const [sub, tl] = await Promise.all([
    api("GET", "/v1/subscriptions/" + encodeURIComponent(v.subscriptionId)),
    api("GET", "/v1/deliveries/" + encodeURIComponent(id) + "/timeline"),
  ]);
  if (shownDelivery !== id) return v;
  $("#delivery-error").hidden = true;
  $("#delivery-error").textContent = "";
  $("#delivery-detail").hidden = false;
  $("#delivery-state").textContent = stateWord(v.state);
  $("#delivery-state").dataset.state = v.state;
  $("#delivery-test").hidden = !v.test;
  $("#delivery-event").textContent = v.eventId;
  $("#delivery-endpoint").textContent = v.endpoint;
  $("#delivery-endpoint").href = "#/endpoint/" + encodeURIComponent(v.subscriptionId);
  $("#delivery-owner").textContent = text(v.owner);
  $("#delivery-owner-part").hidden = who.kind === "portal";  // an internal owner, not theirs
  $("#ladder").replaceChildren(...ladder(v, sub.status === 200 ? sub.body : null));
  $("#attempts thead tr").replaceChildren(...attemptColumns().map((c) => el("th", { scope: "col" }, c)));
  fill($("#attempts tbody"), v.attempts.map(attemptRow));
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
  if (v.deadLetter) {
    actions.push(el("span", { class: "muted" }, who.kind === "portal"
      ? ` failed for good: ${humanWords(v.deadLetter.reason)}`
      : ` dead letter: ${v.deadLetter.reason} (owner ${v.deadLetter.owner})`));
  }
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

function deadLetterColumns() {
  return who.kind === "portal"
    ? ["delivery", "endpoint", "reason", "attempts", "failed since", ""]
    : ["delivery", "endpoint", "owner", "reason", "attempts", "failed since", ""];
}

async function loadDeadLetters() {
  const tbody = $("#dead-letters tbody");
  $("#dead-letters thead tr").replaceChildren(...deadLetterColumns().map((c) =>
    el("th", { scope: "col" }, c || el("span", { class: "visually-hidden" }, "actions"))));
  const portal = who.kind === "portal";
  const [r] = await Promise.all([api("GET", "/v1/dead-letters"), fetchEndpoints()]);
  if (r.status !== 200) { note("dead-letters", problemText(r)); return; }
  note("dead-letters", r.body.items.length ? "" : portal ? "No failed deliveries." : "No dead letters.");
  const names = new Map(endpoints.map((s) => [s.id, s.endpoint]));
  fill(tbody, r.body.items.map((d) => el("tr", { "data-id": d.deliveryId },
    el("td", {}, el("a", { href: "#/delivery/" + encodeURIComponent(d.deliveryId) }, d.deliveryId)),
    el("td", { class: portal ? "endpoint" : null }, el("a", { href: "#/endpoint/" + encodeURIComponent(d.subscriptionId) },
      portal ? names.get(d.subscriptionId) || "an endpoint" : d.subscriptionId)),
    portal ? null : el("td", {}, text(d.owner)),
    el("td", {}, portal ? humanWords(d.reason) : text(d.reason)),
    el("td", {}, text(d.attempt)),
    el("td", {}, short(d.deadSince)),
    el("td", {}, el("button", { type: "button", "data-replay": d.deliveryId, onclick: () => replay(d.deliveryId) }, replayLabel())),
  )));
  // the recover form: the endpoint of the newest failure chosen (else the one chosen before)
  const select = $("#recover-subscription");
  const newest = r.body.items.length ? r.body.items[0].subscriptionId : null;
  if (newest && !select.dataset.chosen && names.has(newest)) select.value = newest;
  if (!$("#recover-since").value) $("#recover-since").value = localPicker(Date.now() - 86400e3, $("#recover-since"));
}

// A datetime-local field's value for an instant, in this browser's time zone, to the field's
// step (whole minutes, or milliseconds with step 0.001).
function localPicker(ms, input) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60e3);
  return d.toISOString().slice(0, input.step === "0.001" ? 23 : 16);
}

// A datetime-local field's value (this browser's time zone) as an RFC 3339 time (UTC).
function pickedTime(input) {
  if (!input.value) return "";
  const when = new Date(input.value);
  return Number.isNaN(when.getTime()) ? "" : when.toISOString();
}

// Recover a time range: follows nextSince for a few pages, then says where to go on.
const RECOVER_PAGES = 20;

async function recoverRange() {
  const out = $("#recover-result");
  const sid = $("#recover-subscription").value;
  let since = pickedTime($("#recover-since"));
  const until = pickedTime($("#recover-until"));
  const portal = who.kind === "portal";
  if (!sid || !since) {
    out.className = "error";
    out.textContent = portal ? "Choose an endpoint and the date and time to retry from."
      : "An endpoint and since are needed.";
    return;
  }
  const name = portal ? (endpoints.find((s) => s.id === sid) || {}).endpoint || "the endpoint" : sid;
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
        out.textContent = (total ? `recovered ${total}, then ` : "") + (portal ? "not retried: " : "recover refused: ") + problemText(r);
        return;
      }
      total += r.body.recovered;
      next = r.body.nextSince || null;
      if (!next) break;
      since = next;
    }
    out.className = "";
    out.dataset.recovered = String(total);
    out.textContent = (portal ? `${total} failed deliver${total === 1 ? "y" : "ies"} of ${name} will be sent again`
      : `recovered ${total} deliver${total === 1 ? "y" : "ies"} of ${sid}`) +
      (next ? `; more remain from ${short(next)} (the start is set to it: ${portal ? "retry" : "recover"} again)` : "");
    if (next) $("#recover-since").value = localPicker(Date.parse(next), $("#recover-since"));
    setStatus(portal ? `${total} sent again to ${name}` : `recovered ${total} from ${sid}`);
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
    save(TOKEN_KEY, value);
    $("#token").value = "";
    login();
  });
  $("#token").addEventListener("keydown", (e) => { if (e.key === "Enter") $("#use-token").click(); });
  $("#recover-subscription").addEventListener("change", (e) => { e.target.dataset.chosen = "1"; });
  $("#forget").addEventListener("click", () => {
    if (who && who.kind === "portal") { portalClosed(who.expiresAt ? short(who.expiresAt) : null); return; }
    drop(TOKEN_KEY);
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
    save(LINK_KEY, "1");
    history.replaceState(null, "", location.pathname + location.search + "#/endpoints");
    if (!link) { linkEnded(); return; }
    drop(CLOSED_KEY);  // a link opened again is open again
    save(TOKEN_KEY, link[1]);
    freshLink = true;
  }
  if (token()) login();
  else if (portalPage() && load(CLOSED_KEY) !== null) portalClosed(load(CLOSED_KEY));
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
