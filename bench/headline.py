"""Write (or ``--check``) bench/README.md's headline table from the JSON under bench/results/.

python bench/headline.py          # rewrite the table between the README's markers
python bench/headline.py --check  # exit 1 when the README's table is not what this makes

Every figure below is declared, never typed: what it measures, the command that produces it,
its result file, the JSON paths read from that file and the format they are shown in, and the
goal where one exists. A path is keys separated by ``/``; ``*`` takes every item of a list or
every value of an object, ``{a,b}`` the named ones, a number the item at that index; in a key
``~1`` stands for ``/`` and ``~0`` for ``~`` (as in a JSON Pointer). A path
that matches several values needs an operation in front: ``max:``, ``min:``, ``sum:``,
``count:`` (how many), ``true:`` (how many are true), ``eq=TEXT:`` (how many equal TEXT),
``lt=NUMBER:`` or ``gt=NUMBER:`` (how many are below or above NUMBER). A figure's ``met`` is
the JSON's own verdict (a path) or a bound on its first value (``<= 0.45``). The date is the
result's own (``recorded_at``, ``when``, ``at``, ``finished_at``, or the path ``date`` names)
or, when the JSON has none, the date of the last commit that changed the file; the load is
the 1-minute load average the path ``load`` names. Stdlib only: no engine import.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FIGURES", "Figure", "HeadlineError", "main", "read", "row", "table", "with_table"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
README = ROOT / "bench" / "README.md"
BEGIN, END = "<!-- headline:begin -->", "<!-- headline:end -->"
HEADER = "| benchmark | result | goal | command | result file | date, load |"
_DATE_KEYS = ("recorded_at", "when", "at", "finished_at")
_OPS = ("max", "min", "sum", "count", "true")


class HeadlineError(Exception):
    """A figure that cannot be read from its result file (missing file, key or value)."""


@dataclass(frozen=True)
class Figure:
    """One headline figure: ``fmt`` is a ``str.format`` template over the values of ``paths``."""

    name: str
    command: str
    result: str
    paths: tuple[str, ...]
    fmt: str
    goal: str = "-"
    met: str | None = None
    load: str | None = None
    date: str | None = None
    note: str = ""


_E2E = (
    ".venv/bin/python bench/bench_e2e.py --harness both --large-subs 0 --no-profile"
    " --peak-seconds 100 --max-peak-events 300 --half-seconds 4 --baseline-seconds 3"
    " --stats-settle-seconds 5 --peer procrastinate"
)
_E2E_FILE = "s13_e2e_after_3.json"
_E2E_LOAD = "summary/outside/loadavg_start_end/0/0"
_E2E_DATE = "modes/outside/recorded_at"
_OUT = "summary/outside/hookproof"
_BROKER = ".venv/bin/python bench/bench_broker_engine.py --events 300"
_AUTH = f"{_BROKER} --kinds https,https-mtls,https-oauth2,https-proxy"
_AUTH_CPU = "sum:runs/{kind}/cpu_ms_per_delivery_by_process/{{engine,postgres}}"
_SOAK = ".venv/bin/python bench/bench_soak.py --minutes 10 --rate 40 --wal-by-relation"
_INGEST = ".venv/bin/python bench/bench_ingest.py"
_STORE = (
    ".venv/bin/python bench/bench_event_store.py --seconds 2 --warmup 0.3 --batches 1,100"
    " --tail-events 200000"
)
_SIGS = ".venv/bin/python bench/bench_signatures.py --workers 2"
_TS = "summary_median_us"
_REBUILD = ".venv/bin/python bench/bench_rebuild.py"

FIGURES: tuple[Figure, ...] = (
    Figure(
        "end to end: ingest -> signed HTTPS -> ENDPOINT_ACCEPTED, 10 sites, `serve --workers 2`"
        " (harness in site processes / outside, in one process)",
        _E2E,
        _E2E_FILE,
        (
            "summary/processes/hookproof/deliveries_per_s",
            f"{_OUT}/deliveries_per_s",
        ),
        "**{0:,.0f}** / **{1:,.0f}** deliveries/s",
        "2,000",
        "modes/outside/goals/rate_ge_2000_per_s/pass",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "same, as a share of the bare keep-alive client (outside layout)",
        _E2E,
        _E2E_FILE,
        (
            "summary/outside/ratio_to_bare_keepalive/value",
            "summary/outside/bare_keepalive/requests_per_s",
        ),
        "**{0:.3f}** (bare client {1:,.0f} req/s)",
        ">= 0.30",
        "summary/outside/ratio_to_bare_keepalive/pass",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "same, against the procrastinate peer (processes / outside)",
        _E2E,
        _E2E_FILE,
        (
            "summary/processes/ratio_to_peer/value",
            "summary/outside/ratio_to_peer/value",
            "summary/outside/peer/deliveries_per_s",
        ),
        "**{0:.2f}x** / **{1:.2f}x** (peer {2:,.0f} deliveries/s)",
        ">= 3x",
        "summary/outside/ratio_to_peer/pass",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "CPU per delivery at the peak: engine + Postgres (outside layout)",
        _E2E,
        _E2E_FILE,
        (
            f"{_OUT}/cpu_ms_per_delivery/engine_plus_postgres",
            f"{_OUT}/cpu_ms_per_delivery/engine",
            f"{_OUT}/cpu_ms_per_delivery/postgres",
        ),
        "**{0:.3f} ms** ({1:.3f} engine + {2:.3f} Postgres)",
        "<= 0.45 ms",
        "<= 0.45",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "WAL per delivery at the peak (outside layout; the peer beside it)",
        _E2E,
        _E2E_FILE,
        (f"{_OUT}/wal_kib_per_delivery", "summary/outside/peer/wal_kib_per_delivery"),
        "**{0:.2f} KiB** (peer {1:.2f})",
        "<= 4.0 KiB",
        "modes/outside/goals/wal_le_4.0_kib_per_delivery_at_peak/pass",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "p99 ingest -> accepted at half the peak rate (outside layout)",
        _E2E,
        _E2E_FILE,
        ("modes/outside/goals/p99_lt_100ms_at_half_peak/value_ms",),
        "**{0:.1f} ms**",
        "< 100 ms",
        "modes/outside/goals/p99_lt_100ms_at_half_peak/pass",
        _E2E_LOAD,
        _E2E_DATE,
    ),
    Figure(
        "ingest, single-event `POST /v1/events` at concurrency 32, 10 subscriptions",
        _INGEST,
        "ingest_s5_integrated.json",
        ("single/events_per_s", "single/p99_ms", "single/cpu/all_ours_cpu_ms_per_event"),
        "**{0:,.0f} events/s**, p99 {1:.1f} ms, {2:.2f} ms CPU per event",
        "2,000",
        ">= 2000",
        "single/cpu/load_avg_1m",
    ),
    Figure(
        "ingest, `POST /v1/events/batch` (1,000 per request), 10 subscriptions",
        _INGEST,
        "ingest_s5_integrated.json",
        ("batch/events_per_s", "batch/cpu/all_ours_cpu_ms_per_event"),
        "**{0:,.0f} events/s**, {1:.2f} ms CPU per event",
        "10,000",
        ">= 10000",
        "batch/cpu/load_avg_1m",
    ),
    Figure(
        "event store: append, batch 100, best of 1 / 16 writers (durable)",
        _STORE,
        "event_store_dedupe_after.json",
        ("goals/batch100_at_least_50k_events_per_s/best",),
        "**{0:,.0f} events/s**",
        "50,000",
        "goals/batch100_at_least_50k_events_per_s/met",
        "machine/loadavg_start/0",
    ),
    Figure(
        "event store: 1-event transactions x 16 writers vs `eventsourcing`",
        _STORE,
        "event_store_dedupe_after.json",
        ("goals/ratio_16_writers_1_event_at_least_2_5x/value",),
        "**{0:.2f}x**",
        ">= 2.5x",
        "goals/ratio_16_writers_1_event_at_least_2_5x/met",
        "machine/loadavg_start/0",
    ),
    Figure(
        "event store: tail read (`read_after`)",
        _STORE,
        "event_store_dedupe_after.json",
        ("tail/hookproof/events_per_s", "tail/hookproof/events"),
        "**{0:,.0f} events/s** over {1:,} events",
        "200,000",
        "goals/tail_at_least_200k_events_per_s/met",
        "machine/loadavg_start/0",
    ),
    Figure(
        "signatures, 1 KiB, one core: ed25519 sign / verify; HMAC-SHA256 sign / verify",
        _SIGS,
        "signatures_dedupe_after.json",
        (
            "throughput_single_core/ed25519/sign_per_s",
            "throughput_single_core/ed25519/verify_per_s",
            "throughput_single_core/hmac-sha256/sign_per_s",
            "throughput_single_core/hmac-sha256/verify_per_s",
        ),
        "{0:,} / {1:,}; {2:,} / {3:,} per s",
    ),
    Figure(
        "signatures: mutation gate (every mutated request refused)",
        _SIGS,
        "signatures_dedupe_after.json",
        ("mutation_gate/accepted", "mutation_gate/mutations", "mutation_gate/seconds"),
        "**{0} accepted** of {1:,} mutations, {2:.1f} s",
        "0 accepted, < 120 s",
        "mutation_gate/passed",
    ),
    Figure(
        "subscriber SDK verification of a 1 KiB delivery, CPU per verification:"
        " TypeScript (Node.js) vs Python, ed25519 / HMAC-SHA256",
        ".venv/bin/python bench/bench_ts_verify.py",
        "s6_ts_verify.json",
        (
            f"{_TS}/sig.v1 ed25519 ~1 full/node_cpu_us",
            f"{_TS}/sig.v1 hmac-sha256 ~1 full/node_cpu_us",
            f"{_TS}/sig.v1 ed25519 ~1 full/python_cpu_us",
            f"{_TS}/sig.v1 hmac-sha256 ~1 full/python_cpu_us",
        ),
        "{0:.0f} / {1:.0f} us (TypeScript) vs {2:.0f} / {3:.0f} us (Python)",
        "-",
        None,
        "load_avg_before/0",
    ),
    Figure(
        "console and portal pages with 10,000 deliveries in range: first render, slowest view",
        ".venv/bin/python bench/bench_pages.py",
        "s10_pages.json",
        ("max:views/*/first_render_ms/median", "count:views/*", "max:views/*/transfer_bytes"),
        "**{0:,.0f} ms** (median, slowest of {1} views); at most {2:,} bytes transferred",
        "< 1 s",
        "< 1000",
        "load_before/0",
    ),
    Figure(
        "delivery log at 1,000,000 deliveries: first page, every filter combination",
        ".venv/bin/python bench/bench_delivery_log.py --runs 10",
        "s11_wal_delivery_log_after.json",
        ("lt=50:cells/*/first_page/server_ms", "count:cells/*", "max:cells/*/first_page/server_ms"),
        "**{0} of {1}** filter combinations under 50 ms server time; the slowest {2:,.1f} ms",
        "< 50 ms server time, every combination",
        None,
        "load_before/0",
        note="that one, state ENDPOINT_ACCEPTED with evidence NONE, matches no row by"
        " construction and is answered without a query since 0826741; not re-measured",
    ),
    Figure(
        "search at 1,000,000 deliveries: first page of a payload-field search; a combined one",
        ".venv/bin/python bench/bench_search.py --rows 1000000 --runs 10 --wal-rows 40000",
        "search.json",
        (
            "cells/0/first_page/wall_ms_median",
            "cells/4/first_page/wall_ms_median",
            "wal/index_bytes_per_event",
        ),
        "**{0:,.1f} ms** payload field, **{1:,.1f} ms** payload field + status + time + type "
        "(median wall); the search index adds {2:,.0f} B of WAL per event",
        "< 100 ms; < 200 ms combined",
        "< 100",
        "load_before/0",
    ),
    Figure(
        "soak, 10 min at 40 events/s, 5 subscribers (one failing 20%): API p99, worst 15 s window",
        _SOAK,
        "s11_soak_final_main.json",
        ("targets/worst_15s_window_p99_ms", "api_latency_ms/p99", "targets/p999_ms"),
        "**{0:.1f} ms** (whole run p99 {1:.1f}, p99.9 {2:.1f})",
        "< 50 ms every window, p99.9 < 150 ms",
        "targets/p99_every_15s_window_under_50ms",
        "load/loadavg_start/0",
    ),
    Figure(
        "soak: worker RSS growth from minute 2; WAL and table bytes per delivery",
        _SOAK,
        "s11_soak_final_main.json",
        (
            "max:targets/worker_rss_growth_pct/*",
            "wal/kib_per_delivery",
            "disk/tables_bytes_per_delivery",
        ),
        "**+{0:.1f}%** RSS; {1:.2f} KiB WAL, {2:,.0f} B of tables per delivery",
        "< 5% RSS growth",
        "targets/worker_rss_growth_under_5pct",
        "load/loadavg_start/0",
    ),
    Figure(
        "broker destinations through the engine: NATS JetStream",
        _BROKER,
        "s13_broker_engine_after_claim_fix.json",
        (
            "runs/nats/ratio_to_bare",
            "runs/nats/deliveries_per_s",
            "runs/nats/ratio_to_bare_same_message",
        ),
        "**{0:.3f}** of the bare publisher ({2:.3f} against the same message), {1:,.0f} deliveries/s",
        ">= 0.30 of the bare publisher",
        ">= 0.30",
        "loadavg_before/0",
    ),
    Figure(
        "broker destinations through the engine: RabbitMQ",
        _BROKER,
        "s13_broker_engine_after_claim_fix.json",
        (
            "runs/amqp/ratio_to_bare",
            "runs/amqp/deliveries_per_s",
            "runs/amqp/ratio_to_bare_same_message",
        ),
        "**{0:.3f}** of the bare publisher ({2:.3f} against the same message), {1:,.0f} deliveries/s",
        ">= 0.30 of the bare publisher",
        ">= 0.30",
        "loadavg_before/0",
    ),
    Figure(
        "endpoint auth through the engine, engine + Postgres CPU per delivery:"
        " plain HTTPS / mTLS / OAuth2 / through tinyproxy",
        _AUTH,
        "s13_endpoint_auth_engine_run3.json",
        (
            _AUTH_CPU.format(kind="https"),
            _AUTH_CPU.format(kind="https-mtls"),
            _AUTH_CPU.format(kind="https-oauth2"),
            _AUTH_CPU.format(kind="https-proxy"),
        ),
        "{0:.3f} / {1:.3f} / {2:.3f} / {3:.3f} ms",
        "-",
        None,
        "loadavg_before/0",
    ),
    Figure(
        "rate limit 100/s, burst 10, two `serve --workers 2` daemons, 60 s",
        ".venv/bin/python bench/bench_rate_limit.py --rate 100 --burst 10 --seconds 60 --workers 2",
        "s11_rate_limit.json",
        (
            "error_vs_perSecond_pct",
            "observed_rate_after_burst",
            "max_in_any_1s_window",
            "bound_for_1s",
            "other/rate_per_s",
        ),
        "**{1:.2f}/s** (error {0:.1f}%), at most {2} in any 1 s (bound {3:.0f});"
        " another subscription {4:,.0f}/s beside it",
        "within 5% of the limit",
        "<= 5",
        "load_before/0",
    ),
    Figure(
        "fault campaign (DESIGN section 12): scenarios passed; gates; audit",
        "make faults",
        "faults.json",
        (
            "true:scenarios/*/passed",
            "count:scenarios/*",
            "eq=pass:gates/*/status",
            "eq=UNOBSERVABLE:gates/*/status",
            "count:gates/*",
            "auditVerify/ok",
        ),
        "**{0} of {1}** scenarios passed; gates: {2} pass, {3} unobservable, of {4};"
        " audit verified: {5}",
        "all pass",
    ),
    Figure(
        "reads on a hot standby: delivery rate with a reader at 50 GETs/s, vs no reader",
        ".venv/bin/python bench/bench_standby.py --events 400 --workers 2",
        "s10_standby_reads.json",
        ("summary/standby_reader_vs_none", "summary/primary_reader_vs_none"),
        "**{0:.3f}** of no reader (reader on the primary: {1:.3f})",
        "within 10%",
        ">= 0.90",
        "loadavg_start/0",
    ),
    Figure(
        "100,000 idle subscriptions beside 10 busy ones: engine RSS; delivery rate vs 10",
        ".venv/bin/python bench/bench_idle_subscriptions.py",
        "s10_100k_idle_subscriptions.json",
        ("subs_100k/engine_rss_mb", "subs_10/engine_rss_mb", "summary/delivery_ratio_100k_vs_10"),
        "**{0:.1f} MB** (10 subscriptions: {1:.1f}); delivery rate {2:.2f}x the 10-subscription one",
        "< 400 MB",
        "< 400",
        "machine/loadavg_start/0",
    ),
    Figure(
        "engine RSS at 10,000 subscriptions (supervisor + 2 workers)",
        ".venv/bin/python bench/bench_e2e.py --peak-seconds 12 --half-seconds 15 --baseline-seconds 5",
        "e2e_s5_final.json",
        ("phases/peak_10000_subscriptions/engine_peak_rss_mb",),
        "**{0:.1f} MB**",
        "< 300 MB",
        "< 300",
        "machine/loadavg_start/0",
    ),
    Figure(
        "projection rebuild of a 1,000,000-event log (the slowest projection)",
        _REBUILD,
        "rebuild_after_ledger_table.json",
        ("goals/rebuildEventsPerSecond/worst",),
        "**{0:,} events/s** of log",
        "150,000 events/s",
        "goals/rebuildEventsPerSecond/met",
    ),
    Figure(
        "timeline of one delivery in a 1,000,000-event log",
        _REBUILD,
        "rebuild_after_ledger_table.json",
        ("timelineMs/p50", "timelineMs/p95"),
        "**{0:.2f} ms** median (p95 {1:.2f})",
        "< 50 ms",
        "goals/timelineMs/met",
    ),
    Figure(
        "retention: 300 deliveries/s offered, 1-minute retention, 10 min, default throttle",
        ".venv/bin/python bench/bench_retention.py --rate 150 --subscriptions 2 --duration 600"
        " --batch 25",
        "retention_300dlv_10min_defaults.json",
        (
            "delivery_rate/drop_percent",
            "delivery_rate/before_archiving_per_s",
            "delivery_rate/while_archiving_per_s",
            "hot_table/max_events_after_first_retention",
            "archive/throughput_events_per_s",
        ),
        "{1:.0f} -> **{2:.0f}** deliveries/s while archiving (drop {0:.1f}%);"
        " hot table at most {3:,} events; archive {4:,.0f} events/s",
        "drop < 10%",
        "< 10",
        "machine/loadavg_start/0",
    ),
    Figure(
        "a victim tenant's HTTPS deliveries beside another tenant's 34 hung broker destinations"
        " (calm / hostile p99; in-process engine)",
        ".venv/bin/python bench/bench_hostile_victim.py --events 300"
        " --out bench/results/s15_hostile_victim_quiet.json",
        "s15_hostile_victim_quiet.json",
        (
            "max:kinds/{amqp,nats}/p99_ratio",
            "kinds/amqp/calm/p99_ms",
            "kinds/amqp/hostile/p99_ms",
            "kinds/nats/calm/p99_ms",
            "kinds/nats/hostile/p99_ms",
            "max:kinds/{amqp,nats}/hostile/max_ms",
        ),
        "AMQP {1:.1f} / {2:.1f} ms, NATS {3:.1f} / {4:.1f} ms: p99 up to **{0:.2f}x** of calm;"
        " worst delivery {5:.0f} ms (never stalled)",
        "hostile p99 <= 1.2x calm",
        "<= 1.2",
        "loadavg_before/0",
    ),
    Figure(
        "filters: one CESQL evaluation of the TCK's typical expression"
        " (`id LIKE 'my%' AND source LIKE '%.ca'`), in process",
        ".venv/bin/python bench/bench_filters.py",
        "s15_filters.json",
        ("cesql/0/matches/median_us", "cesql/0/matches/best_us"),
        "**{0:.1f} us** median ({1:.1f} best)",
        "< 20 us",
        "< 20",
        "loadavg_before/0",
        "when",
    ),
    Figure(
        "ingest per event, 10,000 subscriptions on one topic each with its own equality filter"
        " (exact / match) vs 10,000 unfiltered on their own topics (group commit, concurrency"
        " 32, in process, local Postgres)",
        ".venv/bin/python bench/bench_ingest_filters.py",
        "s16_ingest_filters.json",
        (
            "max:ratioToNone/{exact,match}",
            "usPerEvent/exact",
            "usPerEvent/match",
            "usPerEvent/none",
            "ratioToNone/unindexed",
        ),
        "**{0:.2f}x** of unfiltered at worst: exact {1:.0f}, match {2:.0f}, none {3:.0f} us/event"
        " (no equality to index: {4:.1f}x)",
        "<= 1.2x",
        "<= 1.2",
        "loadavg/0",
        "date",
    ),
    Figure(
        "transformation sandbox (QuickJS in wasmtime): CPU per run, 1 KiB payload, ten-line"
        " handler (library only, not yet wired)",
        ".venv/bin/python bench/bench_transform.py",
        "s15_transform.json",
        (
            "run_sandbox_with_verdict_and_digests/cpu_us_median",
            "run_on_a_fresh_worker_each_time/cpu_us_median",
            "startup_compile_module/cpu_ms",
        ),
        "**{0:,.0f} us** (a fresh instance each run: {1:,.0f} us; compiling the module once per"
        " process: {2:,.0f} ms)",
        "<= 1 ms",
        "<= 1000",
        "loadavg_start/0",
        "date",
    ),
)


def _number(value: Any) -> Any:
    """Numbers recorded as text (``"1.07"``) become numbers; everything else is kept."""
    if isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return float(value) if "." in value else int(value)
    return value


def _walk(node: Any, parts: list[str], where: str) -> list[Any]:
    if not parts:
        return [node]
    head, rest = parts[0].replace("~1", "/").replace("~0", "~"), parts[1:]
    if head == "*":
        children = list(node.values()) if isinstance(node, dict) else node
        if not isinstance(children, list):
            raise HeadlineError(f"{where}: '*' over a {type(node).__name__}")
        return [v for child in children for v in _walk(child, rest, where)]
    if head.startswith("{") and head.endswith("}"):
        return [v for key in head[1:-1].split(",") for v in _walk(node, [key, *rest], where)]
    if isinstance(node, list) and head.isdigit() and int(head) < len(node):
        return _walk(node[int(head)], rest, where)
    if isinstance(node, dict) and head in node:
        return _walk(node[head], rest, where)
    raise HeadlineError(f"{where}: no {head!r}")


def read(data: Any, spec: str, where: str = "") -> Any:
    """The value ``spec`` names in ``data`` (see the module's docstring for the syntax)."""
    op, _, path = spec.partition(":") if ":" in spec else ("", "", spec)
    values = [_number(v) for v in _walk(data, path.split("/"), f"{where} {path}")]
    if op == "":
        if len(values) != 1:
            raise HeadlineError(f"{where} {path}: {len(values)} values and no operation")
        return values[0]
    if op == "count":
        return len(values)
    if op == "true":
        return sum(1 for v in values if v is True)
    if op.startswith("eq="):
        return sum(1 for v in values if str(v) == op[3:])
    if op[:3] in ("lt=", "gt="):
        bound = float(op[3:])
        return sum(1 for v in values if (float(v) < bound if op[0] == "l" else float(v) > bound))
    if op not in _OPS or not values:
        raise HeadlineError(f"{where} {spec}: unknown operation or nothing matched")
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    numbers = [int(v) if whole else float(v) for v in values]
    if op == "max":
        return max(numbers)
    return min(numbers) if op == "min" else sum(numbers)


def _commit_date(path: Path) -> str:
    out = subprocess.run(
        ["git", "log", "-1", "--format=%ad", "--date=short", "--", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0 or not out.stdout.strip():
        raise HeadlineError(f"{path.name}: no date in the JSON and no commit of it")
    return out.stdout.strip()


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise HeadlineError(f"{path.name}: {exc}") from exc


def _date(figure: Figure, data: Any, path: Path) -> str:
    if figure.date is not None:
        return str(read(data, figure.date, figure.result))[:10]
    for key in _DATE_KEYS:
        if isinstance(data, dict) and isinstance(data.get(key), str):
            return str(data[key])[:10]
    return _commit_date(path)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_BOUND = re.compile(r"(<=|>=|<|>)\s*(-?[\d.]+)")


def _met(figure: Figure, data: Any, first: Any) -> bool:
    """The JSON's own verdict, or the figure's first value held to the declared bound."""
    assert figure.met is not None
    bound = _BOUND.fullmatch(figure.met)
    if bound is None:
        return read(data, figure.met, figure.result) is True
    op, limit = bound.group(1), float(bound.group(2))
    value = float(first)
    return {"<=": value <= limit, ">=": value >= limit, "<": value < limit, ">": value > limit}[op]


def _shown(value: Any) -> Any:
    return ("yes" if value else "no") if isinstance(value, bool) else value


def row(figure: Figure) -> str:
    """The table row of one figure, every number read from its result file."""
    path = RESULTS / figure.result
    data = _load(path)
    values = [read(data, spec, figure.result) for spec in figure.paths]
    result = figure.fmt.format(*(_shown(v) for v in values))
    if figure.note:
        result += f" ({figure.note})"
    goal = figure.goal
    if figure.met is not None:
        goal += " (met)" if _met(figure, data, values[0]) else " (not met)"
    when = _date(figure, data, path)
    if figure.load is not None:
        when += f", load {float(read(data, figure.load, figure.result)):.1f}"
    cells = (figure.name, result, goal, f"`{figure.command}`", f"`results/{figure.result}`", when)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def table(figures: tuple[Figure, ...] = FIGURES) -> str:
    """The whole headline table, header included, one line per figure."""
    lines = [HEADER, "| --- | --- | --- | --- | --- | --- |"]
    lines += [row(f) for f in figures]
    return "\n".join(lines) + "\n"


def with_table(text: str) -> str:
    """``text`` with the generated table between the markers."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise HeadlineError(f"bench/README.md has no {BEGIN} ... {END} markers")
    generated = table()
    return pattern.sub(lambda _m: f"{BEGIN}\n{generated}{END}", text, count=1)


def main(argv: list[str], readme: Path = README) -> int:
    """Rewrite ``readme``'s table, or with ``--check`` exit 1 when it is not the generated one."""
    text = readme.read_text()
    try:
        wanted = with_table(text)
    except HeadlineError as exc:
        print(f"bench/headline.py: {exc}", file=sys.stderr)
        return 2
    if "--check" in argv:
        if wanted != text:
            print(
                "bench/README.md's headline table differs from bench/results/:"
                " run .venv/bin/python bench/headline.py",
                file=sys.stderr,
            )
            return 1
        return 0
    readme.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
