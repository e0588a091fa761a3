// hookproof console, the portal view: what a consumer opened from a portal link sees (its own
// endpoints, their deliveries and dead letters, Add endpoint, secret rotation, the event
// catalogue), plus the per-endpoint chart of the last 24 hours that every view shows.
// Uses console.js's helpers; data goes into the page with textContent only.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
// outcome -> colour, stacked bottom-up in this order
const OUTCOMES = [
  ["ENDPOINT_ACCEPTED", "#1a7f37"],
  ["RETRYABLE", "#d4a72c"],
  ["UNKNOWN_TRANSPORT", "#6a737d"],
  ["DEAD_LETTER", "#cf222e"],
];

function svg(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  return node;
}

function portalEnter(w) {
  $("#who").textContent = "consumer " + w.consumerId + " (portal)";
  $("#portal").hidden = false;
  $("#catalogue").hidden = false;
  $("#portal-consumer").textContent = w.consumerId;
  $("#portal-expires").textContent = short(w.expiresAt);
  for (const id of ["gates", "rollouts", "lookup"]) $("#" + id).hidden = true;
  $("#forget").textContent = "Close";
}

// -- the chart: attempts of the last 24 hours, one stacked bar per hour ----------------------

// A chart's place in a row; drawCharts fills every chart of the view with one request.
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
      if (s) drawChart(s.buckets, h); else h.textContent = "-";
    }
  }
}

function drawChart(buckets, holder) {
  const barW = 6, gap = 1, height = 32;
  const totals = buckets.map((b) => Object.values(b.counts).reduce((a, n) => a + n, 0));
  const max = Math.max(1, ...totals);
  const sum = {};
  const chart = svg("svg", {
    class: "chart", width: buckets.length * (barW + gap), height: height + 1,
    viewBox: `0 0 ${buckets.length * (barW + gap)} ${height + 1}`, role: "img",
  });
  chart.append(svg("line", { x1: 0, y1: height + 0.5, x2: buckets.length * (barW + gap), y2: height + 0.5, stroke: "#d0d7de" }));
  buckets.forEach((b, i) => {
    let y = height;
    const known = new Set(OUTCOMES.map(([o]) => o));
    const stack = OUTCOMES.map(([o, colour]) => [o, colour, b.counts[o] || 0]);
    const other = Object.entries(b.counts).filter(([o]) => !known.has(o)).reduce((a, [, n]) => a + n, 0);
    if (other) stack.push(["OTHER", "#8250df", other]);
    for (const [outcome, colour, n] of stack) {
      sum[outcome] = (sum[outcome] || 0) + n;
      if (!n) continue;
      const h = Math.max(1, Math.round((n / max) * height));
      y -= h;
      const rect = svg("rect", { x: i * (barW + gap), y, width: barW, height: h, fill: colour, "data-outcome": outcome, "data-n": n });
      const title = svg("title");
      title.textContent = `${short(b.hour)}: ${n} ${outcome}`;
      rect.append(title);
      chart.append(rect);
    }
  });
  const total = totals.reduce((a, n) => a + n, 0);
  chart.setAttribute("aria-label", `attempts in the last 24 hours: ${total}`);
  holder.dataset.total = String(total);
  for (const [o] of OUTCOMES) holder.dataset[o.toLowerCase().replace(/_(.)/g, (_, c) => c.toUpperCase())] = String(sum[o] || 0);
  const legend = el("div", { class: "chart-legend" },
    total ? OUTCOMES.filter(([o]) => sum[o]).map(([o]) => `${sum[o]} ${o.toLowerCase()}`).join(", ") : "no attempts");
  holder.replaceChildren(chart, legend);
}

// -- Add endpoint, rotate secret -------------------------------------------------------------

function showSecretOnce(secret, sid) {
  $("#secret-value").textContent = secret;
  $("#secret-for").textContent = sid;
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
    out.textContent = "An endpoint URL and at least one topic are needed.";
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
  out.textContent = `added ${r.body.id}: ${r.body.state}; the challenge runs now`;
  if (r.body.secret) showSecretOnce(r.body.secret, r.body.id);
  $("#add-endpoint-url").value = "";
  await loadSubscriptions();
}

async function rotateSecret(sid) {
  const r = await api("POST", "/v1/subscriptions/" + encodeURIComponent(sid) + "/secret/rotate");
  if (r.status !== 201) { setStatus("rotation refused: " + problemText(r)); return; }
  showSecretOnce(r.body.secret, sid);
  setStatus(`next secret issued for ${sid}: install it, then the challenge promotes it`);
  await loadSubscriptions();
}

// -- the event catalogue (GET /v1/event-types; a daemon without it shows an empty one) -------

function versionsOf(t) {
  const v = t.versions || {};
  return Array.isArray(v) ? v.map((x) => [String(x.major ?? x.version ?? "?"), x]) : Object.entries(v);
}

async function loadCatalogue() {
  const holder = $("#catalogue-items");
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
    ...versionsOf(t).map(([major, v]) => el("div", { "data-version": major },
      el("span", {}, "version " + major + " example:"),
      el("pre", {}, v && v.example !== undefined ? JSON.stringify(v.example, null, 2) : "-"))),
  )));
}

document.addEventListener("DOMContentLoaded", () => {
  $("#add-endpoint").addEventListener("click", () => { addEndpoint(); });
});
