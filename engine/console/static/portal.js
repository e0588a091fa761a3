// hookproof console, the portal side: what a consumer opened from a portal link sees, in its
// own words (its endpoints, their deliveries and failures, Add endpoint, secret rotation, the
// event catalogue, test events, the tenant's branding), and the per-endpoint charts that
// every view shows (inline SVG built with DOM calls). Uses console.js's helpers; data goes into
// the page with textContent only.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
// outcome -> label and colour, stacked bottom-up in this order (colours keep 3:1 on white)
const OUTCOMES = [
  ["ENDPOINT_ACCEPTED", "accepted", "#1a7f37"],
  ["RETRYABLE", "failed, retried", "#9a6700"],
  ["UNKNOWN_TRANSPORT", "no answer", "#57606a"],
  ["DEAD_LETTER", "failed for good", "#cf222e"],
];
const OTHER_COLOUR = "#8250df";
// The words a customer reads for the engine's states (the engine's own stay in the console).
const STATE_WORDS = {
  PLANNED: "Queued", DISPATCHING: "Sending", ENDPOINT_ACCEPTED: "Delivered",
  APPLICATION_CONFIRMED: "Delivered and confirmed", RETRYABLE: "Retrying",
  UNKNOWN_TRANSPORT: "No answer, retrying", DEAD_LETTER: "Failed", QUARANTINED: "Held",
  SKIPPED: "Skipped",
};
const SUBSCRIPTION_WORDS = {
  ACTIVE: "Active", PENDING_CHALLENGE: "Checking the address", SUSPENDED: "Paused",
  REVOKED: "Removed", EXPIRED: "Expired",
};
// Where a customer's code checks a signature: the public keys served by this daemon, and the
// page that says how (verify.html).
const PUBLIC_KEYS = "/.well-known/hookproof/jwks.json";
const SIGNATURE_DOCS = "/console/verify";
// What a timeline entry says happened, by its event type (others: the state it left).
const TIMELINE_WORDS = {
  "delivery.planned": "Queued for your endpoint",
  "delivery.attempt_admitted": "Sending",
  "delivery.endpoint_accepted": "Your endpoint accepted it",
  "delivery.attempt_failed": "An attempt failed",
  "delivery.attempt_lost": "An attempt got no answer",
  "delivery.dead_lettered": "Failed for good",
  "delivery.quarantined": "Held",
  "delivery.replay_requested": "Sent again on request",
  "delivery.skipped": "Skipped",
  "delivery.application_confirmed": "Your application confirmed it",
  "subscription.registered": "Endpoint added",
  "subscription.challenge_issued": "Address check sent",
  "subscription.challenge_published": "Address check sent",
  "subscription.challenge_passed": "Address check passed",
  "subscription.challenge_failed": "Address check failed",
  "subscription.updated": "Settings changed",
  "subscription.state_changed": "Status changed",
};

// An engine code ("max_attempts", "ENDPOINT_ACCEPTED") as words: "Max attempts".
function humanWords(code) {
  if (code === null || code === undefined || code === "") return "-";
  const words = String(code).replace(/[_.]+/g, " ").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function stateWord(state) {
  if (!who || who.kind !== "portal") return text(state);
  return STATE_WORDS[state] || SUBSCRIPTION_WORDS[state] || humanWords(state);
}

function timelineWords(e) {
  const what = TIMELINE_WORDS[e.type] || "Updated";
  return e.state ? `${what} (now: ${stateWord(e.state).toLowerCase()})` : what;
}

function evidenceWords(ev) {
  if (ev.application === "CONFIRMED") return "confirmed by your application";
  return ev.endpoint === "ENDPOINT_ACCEPTED" ? "accepted by your endpoint" : "not accepted yet";
}

function signedWith(alg) {
  return alg === "hmac-sha256" ? "your shared secret (HMAC-SHA256)" : "our public key (Ed25519)";
}

function svg(tag, attrs, label) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (label !== undefined) node.textContent = label;
  return node;
}

// -- entering the portal: the customer's words and the tenant's branding -----------------------

// The portal's own address (/portal/<tenant>: served under the tenant's policy, which lets its
// logo load); a portal link opened at /console moves there at once. True when it moves.
function portalAddress(w) {
  return "/portal/" + encodeURIComponent(w.tenantId);
}

async function portalEnter(w) {
  if (location.pathname === "/console" && freshLink) {
    // the token goes along in this tab's storage, or (storage denied) in the fragment again
    const rest = storageKept() ? location.hash : "#portal=" + token();
    location.replace(portalAddress(w) + rest);
    return true;
  }
  $("#who").textContent = "";
  $("#portal").hidden = false;
  $("#portal-consumer").textContent = w.consumerId;
  $("#portal-expires").textContent = short(w.expiresAt);
  $("#forget").textContent = "Close";
  for (const p of document.querySelectorAll("[data-portal-only]")) p.hidden = false;
  for (const input of document.querySelectorAll("#recover-form input[type=datetime-local]")) input.step = "60";
  $("#recover").textContent = "Retry";
  $("#title").textContent = "Webhook endpoints";
  $("#h-dead-letters").textContent = "Failed deliveries";
  $("#h-recover").textContent = "Retry failed deliveries";
  for (const a of document.querySelectorAll("#nav a[data-label-portal]")) a.textContent = a.dataset.labelPortal;
  for (const p of document.querySelectorAll("[data-engine-only]")) p.hidden = true;
  for (const o of document.querySelectorAll("#f-state option")) if (o.value) o.textContent = stateWord(o.value);
  const r = await api("GET", "/v1/portal/branding");
  if (r.status !== 200) return false;
  const b = r.body;
  if (b.displayName) {
    $("#title").textContent = b.displayName + " webhooks";
    document.title = b.displayName + " webhooks";
  }
  // the logo only where the page's policy allows its origin: the tenant's portal address
  if (b.logoUrl && location.pathname === portalAddress(w)) {
    const logo = $("#brand-logo");
    logo.src = b.logoUrl;
    logo.alt = (b.displayName || "") + " logo";
    logo.hidden = false;
  }
  // CSSOM, not a style attribute: allowed under style-src 'self'
  if (b.accentColour) document.documentElement.style.setProperty("--accent", b.accentColour);
  return false;
}

function signingNote(s) {
  const docs = el("a", { href: SIGNATURE_DOCS, target: "_blank", rel: "noopener" }, "the steps and libraries");
  if (who.kind !== "portal") {
    const scheme = s.signatureProfile || "hookproof.sig.v1";
    const how = s.signatureAlgorithm === "hmac-sha256" ? "a shared secret" : "a public key (Ed25519)";
    return [`Every request is signed (${scheme}, with ${how}). How to verify a signature: `, docs, "."];
  }
  const keys = s.signatureAlgorithm === "hmac-sha256" ? "the shared secret shown when the endpoint was added"
    : el("a", { href: PUBLIC_KEYS }, "our public keys");
  return [`Every request we send is signed with ${signedWith(s.signatureAlgorithm)}, as an HTTP `,
    "message signature (RFC 9421) in its Signature and Signature-Input headers. How to verify a ",
    "signature: ", docs, "; the hookproof-subscriber library (Python or Node.js) checks it for you with ",
    keys, "."];
}

// -- charts: attempts per hour (24 h) or per day (7 d), stacked by outcome, with axes ---------

// A small chart's place in a row; drawCharts fills every chart of the view with one request.
function attemptChart(sid) {
  return el("div", { class: "chart", "data-chart": sid });
}

// Subscriptions per GET /v1/attempt-stats (a page of GET /v1/subscriptions): one call per
// view and refresh, not one per row.
const STATS_IDS = 100;

async function drawCharts(holders) {
  for (let i = 0; i < holders.length; i += STATS_IDS) {
    const part = holders.slice(i, i + STATS_IDS);
    const query = part.map((h) => "subscriptionId=" + encodeURIComponent(h.dataset.chart)).join("&");
    const r = await api("GET", "/v1/attempt-stats?" + query);
    if (r.status !== 200) {
      for (const h of part) h.textContent = problemText(r);
      continue;
    }
    const stats = new Map(r.body.items.map((s) => [s.subscriptionId, s]));
    for (const h of part) {
      const s = stats.get(h.dataset.chart);
      if (s) drawChart(s.buckets, h, { width: 240, height: 60, every: 6, unit: "hour" }, s.latency); else h.textContent = "-";
    }
  }
}

async function drawBigCharts(sid) {
  for (const [window, interval, id, opts] of [
    ["24h", "hour", "#chart-24h", { width: 560, height: 170, every: 3, unit: "hour", latency: true }],
    ["7d", "day", "#chart-7d", { width: 560, height: 170, every: 1, unit: "day", latency: true }],
  ]) {
    const holder = $(id + " .holder");
    holder.dataset.chart = sid;
    const r = await api("GET", `/v1/attempt-stats?window=${window}&interval=${interval}&subscriptionId=` + encodeURIComponent(sid));
    if (r.status !== 200) { holder.textContent = problemText(r); continue; }
    const item = r.body.items[0];
    drawChart(item.buckets, holder, opts, item.latency);
  }
}

// Response time (ms) as the axis and the legend show it: "850 ms", "1.2 s".
function msText(ms) {
  if (ms === null || ms === undefined) return "-";
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms >= 10 ? Math.round(ms) : Math.round(ms * 10) / 10} ms`;
}

function tickLabel(iso, unit) {
  return unit === "day" ? iso.slice(5, 10) : iso.slice(11, 16);
}

// The latency lines of a big chart: p50, p90 and p99 per bucket, on the right-hand axis.
const PERCENTILES = [["p50", "median (p50)", "#0550ae"], ["p90", "p90", "#6e40c9"], ["p99", "p99", "#953800"]];

function drawChart(buckets, holder, opts, latency) {
  const { width, height, every, unit } = opts;
  const left = 34, bottom = 18, top = 6, right = opts.latency ? 46 : 4;
  const plotW = width - left - right, plotH = height - top - bottom;
  const totals = buckets.map((b) => Object.values(b.counts).reduce((a, n) => a + n, 0));
  const max = Math.max(1, ...totals);
  const step = plotW / Math.max(1, buckets.length);
  const barW = Math.max(2, step - 2);
  const sum = {};
  const chart = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  // axes: y with 0 and the maximum, x with a tick label every `every` buckets
  chart.append(svg("line", { x1: left, y1: top + plotH + 0.5, x2: width - right, y2: top + plotH + 0.5, stroke: "#57606a" }));
  chart.append(svg("line", { x1: left - 0.5, y1: top, x2: left - 0.5, y2: top + plotH, stroke: "#57606a" }));
  for (const [value, y] of [[0, top + plotH], [max, top + 4]]) {
    chart.append(svg("text", { x: left - 4, y: y + 3, "text-anchor": "end", class: "axis", "data-axis": "y" }, String(value)));
  }
  buckets.forEach((b, i) => {
    const x = left + i * step + (step - barW) / 2;
    if (i % every === 0) {
      chart.append(svg("text", { x: x + barW / 2, y: height - 4, "text-anchor": "middle", class: "axis", "data-axis": "x" }, tickLabel(b.hour, unit)));
    }
    let y = top + plotH;
    const known = new Set(OUTCOMES.map(([o]) => o));
    const stack = OUTCOMES.map(([o, , colour]) => [o, colour, b.counts[o] || 0]);
    const other = Object.entries(b.counts).filter(([o]) => !known.has(o)).reduce((a, [, n]) => a + n, 0);
    if (other) stack.push(["OTHER", OTHER_COLOUR, other]);
    for (const [outcome, colour, n] of stack) {
      sum[outcome] = (sum[outcome] || 0) + n;
      if (!n) continue;
      const h = Math.max(1, Math.round((n / max) * plotH));
      y -= h;
      const rect = svg("rect", { x, y, width: barW, height: h, fill: colour, "data-outcome": outcome, "data-n": n });
      const label = (OUTCOMES.find(([o]) => o === outcome) || [, "other"])[1];
      rect.append(svg("title", {}, `${short(b.hour)}: ${n} ${label}`));
      chart.append(rect);
    }
  });
  const lat = opts.latency ? latencyLines(chart, buckets, { left, top, plotH, step, width, right }) : null;
  const total = totals.reduce((a, n) => a + n, 0);
  const ok = sum.ENDPOINT_ACCEPTED || 0;
  const rate = total ? Math.round((ok / total) * 1000) / 10 : null;
  const span = unit === "day" ? "the last 7 days" : "the last 24 hours";
  chart.setAttribute("aria-label", `attempts in ${span}: ${total}` + (rate === null ? "" : `, ${rate}% accepted`));
  holder.dataset.total = String(total);
  holder.dataset.successRate = rate === null ? "" : String(rate);
  for (const [o] of OUTCOMES) holder.dataset[o.toLowerCase().replace(/_(.)/g, (_, c) => c.toUpperCase())] = String(sum[o] || 0);
  const legend = el("ul", { class: "chart-legend" },
    ...OUTCOMES.map(([o, label, colour]) => {
      const swatch = svg("svg", { width: 10, height: 10, "aria-hidden": "true" });
      swatch.append(svg("rect", { width: 10, height: 10, fill: colour }));
      return el("li", { "data-outcome": o }, swatch, ` ${label}: ${sum[o] || 0}`);
    }));
  if (lat) {
    legend.append(...PERCENTILES.map(([q, label, colour]) => {
      const swatch = svg("svg", { width: 14, height: 10, "aria-hidden": "true" });
      swatch.append(svg("line", { x1: 0, y1: 5, x2: 14, y2: 5, stroke: colour, "stroke-width": 2 }));
      return el("li", { "data-latency": q }, swatch, ` ${label}: ${msText(latency ? latency[q] : null)}`);
    }));
  }
  for (const [q] of PERCENTILES) holder.dataset[q] = latency ? String(latency[q]) : "";
  const times = latency ? `; response time p50 ${msText(latency.p50)}, p90 ${msText(latency.p90)}, p99 ${msText(latency.p99)}` : "";
  if (latency) chart.setAttribute("aria-label", chart.getAttribute("aria-label") + times);
  const summary = el("p", { class: "chart-summary" },
    (total ? `${total} attempt${total === 1 ? "" : "s"}, ${rate}% accepted` : "no attempts") + times);
  holder.replaceChildren(chart, summary, legend);
}

// p50/p90/p99 per bucket as lines over the bars, with their own axis on the right (0 and the
// highest p99); a bucket without timed attempts breaks the line.
function latencyLines(chart, buckets, g) {
  const { left, top, plotH, step, width, right } = g;
  const max = Math.max(1, ...buckets.map((b) => (b.latency ? b.latency.p99 : 0)));
  const x0 = width - right;
  chart.append(svg("line", { x1: x0 + 0.5, y1: top, x2: x0 + 0.5, y2: top + plotH, stroke: "#57606a" }));
  for (const [value, y] of [[0, top + plotH], [max, top + 4]]) {
    chart.append(svg("text", { x: x0 + 4, y: y + 3, "text-anchor": "start", class: "axis", "data-axis": "latency" }, msText(value)));
  }
  const yOf = (ms) => top + plotH - (ms / max) * plotH;
  for (const [q, label, colour] of PERCENTILES) {
    let points = [];
    const flush = () => {
      if (points.length > 1) chart.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: colour, "stroke-width": 1.5, "data-latency-line": q }));
      points = [];
    };
    buckets.forEach((b, i) => {
      if (!b.latency) { flush(); return; }
      const x = left + i * step + step / 2;
      const y = yOf(b.latency[q]);
      points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
      const dot = svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.2, fill: colour, "data-latency": q, "data-ms": b.latency[q], stroke: "#fff", "stroke-width": 0.8 });
      dot.append(svg("title", {}, `${short(b.hour)}: ${label} ${msText(b.latency[q])}`));
      chart.append(dot);
    });
    flush();
  }
  return max;
}

// -- Add endpoint, rotate secret, test events -------------------------------------------------

function showSecretOnce(secret, sid, url) {
  $("#secret-value").textContent = secret;
  $("#secret-for").textContent = url;
  $("#secret-for").dataset.id = sid;
  $("#secret-once").hidden = false;
}

// A broker destination (DESIGN.md 13) from the URL's scheme and the target field
// ("exchange routingKey" or "subject stream"); null for an HTTPS endpoint. The API checks it.
function brokerDestination(url) {
  const type = { amqps: "amqp", amqp: "amqp", tls: "nats", nats: "nats" }[url.split(":")[0].toLowerCase()];
  if (!type) return null;
  const [a, b] = $("#add-endpoint-target").value.trim().split(/\s+/);
  const d = type === "amqp"
    ? { type, url, exchange: a || "", routingKey: b || "" }
    : { type, url, subject: a || "", stream: b || "" };
  const username = $("#add-endpoint-user").value.trim();
  const password = $("#add-endpoint-password").value;
  if (username || password) d.credentials = { username, password };
  return d;
}

async function addEndpoint() {
  const out = $("#add-endpoint-result");
  const url = $("#add-endpoint-url").value.trim();
  const topics = $("#add-endpoint-topics").value.split(",").map((t) => t.trim()).filter(Boolean);
  const alg = $("#add-endpoint-alg").value;
  $("#secret-once").hidden = true;
  if (!url || !topics.length) {
    out.className = "error";
    out.textContent = "An endpoint URL and at least one event type are needed.";
    return;
  }
  const body = {
    topics, eventVersions: [1], region: "default",
    signatureAlgorithm: alg, owner: "consumer:" + (who.consumerId || "tenant"),
  };
  const destination = brokerDestination(url);
  if (destination) body.destination = destination; else body.endpoint = url;
  $("#add-endpoint-password").value = "";  // write-only: never kept in the page
  const r = await api("POST", "/v1/subscriptions", body);
  if (r.status !== 201) {
    out.className = "error";
    out.textContent = "refused: " + problemText(r);
    return;
  }
  out.className = "";
  out.dataset.id = r.body.id;
  out.textContent = `added ${text(r.body.endpoint)}: we are checking the address now`;
  if (r.body.secret) showSecretOnce(r.body.secret, r.body.id, text(r.body.endpoint));
  $("#add-endpoint-url").value = "";
  await loadSubscriptions();
}

async function rotateSecret(sid) {
  const r = await api("POST", "/v1/subscriptions/" + encodeURIComponent(sid) + "/secret/rotate");
  if (r.status !== 201) { setStatus("rotation refused: " + problemText(r)); return; }
  const url = text((endpoints.find((s) => s.id === sid) || {}).endpoint);
  showSecretOnce(r.body.secret, sid, url);
  setStatus(`next secret issued for ${url}: install it, then the address check makes it the one in use`);
  await loadSubscriptions();
}

async function sendTest() {
  const sid = $("#send-test").dataset.sid;
  const out = $("#test-result");
  const r = await api("POST", "/v1/subscriptions/" + encodeURIComponent(sid) + "/test-events", { topic: $("#test-topic").value });
  if (r.status !== 202) { out.className = "error"; out.textContent = "not sent: " + problemText(r); return; }
  out.className = "";
  const did = r.body.deliveries.length ? r.body.deliveries[0].deliveryId : null;
  out.dataset.eventId = r.body.eventId;
  out.replaceChildren(`Test event ${r.body.eventId} sent. `,
    did ? el("a", { href: "#/delivery/" + encodeURIComponent(did), "data-delivery": did }, "See its delivery") : "");
}

async function recoverOne() {
  const sid = $("#recover-one").dataset.sid;
  const out = $("#recover-one-result");
  const since = pickedTime($("#recover-one-since"));
  if (!since) { out.className = "error"; out.textContent = "Choose the date and time to retry from."; return; }
  const r = await api("POST", "/v1/subscriptions/" + encodeURIComponent(sid) + "/recover", { since });
  if (r.status !== 202) { out.className = "error"; out.textContent = "not retried: " + problemText(r); return; }
  out.className = "";
  out.dataset.recovered = String(r.body.recovered);
  out.textContent = `${r.body.recovered} failed deliver${r.body.recovered === 1 ? "y" : "ies"} will be sent again` +
    (r.body.nextSince ? "; more remain: retry again" : "");
}

// -- the event catalogue (GET /v1/event-types; a daemon without it shows an empty one) -------

function versionsOf(t) {
  const v = t.versions || {};
  return Array.isArray(v) ? v.map((x) => [String(x.major ?? x.version ?? "?"), x]) : Object.entries(v);
}

async function loadCatalogue() {
  const holder = $("#catalogue-items");
  if (who.kind === "operator") { note("catalogue", "Event types belong to tenants."); holder.replaceChildren(); return; }
  const r = await api("GET", "/v1/event-types");
  if (r.status === 404 || r.status === 405) {
    note("catalogue", "No event catalogue is published here yet.");
    holder.replaceChildren();
    return;
  }
  if (r.status !== 200) { note("catalogue", problemText(r)); holder.replaceChildren(); return; }
  const items = Array.isArray(r.body) ? r.body : (r.body.items || []);
  note("catalogue", items.length ? "" : "No event types are declared yet.");
  holder.replaceChildren(...items.map((t) => el("div", { class: "event-type", "data-topic": t.topic },
    el("h3", {}, el("code", {}, text(t.topic)), t.deprecated ? " (deprecated)" : ""),
    el("p", { class: "muted" }, text(t.description)),
    el("p", {}, el("a", { href: "#/deliveries?eventType=" + encodeURIComponent(t.topic) }, "Deliveries of this type")),
    ...versionsOf(t).map(([major, v]) => el("div", { "data-version": major },
      el("span", {}, "version " + major + " example:"),
      el("pre", {}, v && v.example !== undefined ? JSON.stringify(v.example, null, 2) : "-"))),
  )));
}

document.addEventListener("DOMContentLoaded", () => {
  $("#add-endpoint").addEventListener("click", () => { addEndpoint(); });
  $("#send-test").addEventListener("click", () => { sendTest(); });
  $("#recover-one").addEventListener("click", () => { recoverOne(); });
});
