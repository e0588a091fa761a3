"""Configuration from the environment (DESIGN.md section 11 fixes the names).

``HOOKPROOF_DATABASE_URL``, ``HOOKPROOF_LISTEN``, ``HOOKPROOF_MASTER_KEY``,
``HOOKPROOF_EGRESS_ALLOW``, ``HOOKPROOF_EGRESS_CA_FILE``, ``HOOKPROOF_DNS_SERVERS``, plus
``HOOKPROOF_DATA_DIR`` (embedded Postgres and the master key file), ``HOOKPROOF_MASTER_KEY_FILE``
(a master key file the operator places), the optional read
replica ``HOOKPROOF_READ_DATABASE_URL`` (a hot standby of the primary) and tuning knobs.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hookproof.errors import ValidationError

__all__ = [
    "VARIABLES",
    "Settings",
    "Variable",
    "config_table",
    "default_workers",
    "parse_addr_port",
    "parse_addr_port_list",
]

#: ``HOOKPROOF_TOKEN_CACHE_S`` is capped here: a revoked API token stops working within a minute
TOKEN_CACHE_MAX_S = 60.0


def parse_addr_port(text: str, *, name: str) -> tuple[str, int]:
    """Parse ``1.2.3.4:443`` or ``[::1]:8443`` into a normalised (address, port)."""
    text = text.strip()
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
    else:
        host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValidationError(f"{name}: expected address:port, got {text!r}", field=name)
    try:
        addr = ipaddress.ip_address(host)
    except ValueError as exc:
        raise ValidationError(f"{name}: not an IP address: {host!r}", field=name) from exc
    p = int(port)
    if not 0 < p < 65536:
        raise ValidationError(f"{name}: port out of range: {p}", field=name)
    return str(addr), p


def parse_addr_port_list(text: str | None, *, name: str) -> tuple[tuple[str, int], ...]:
    if not text:
        return ()
    return tuple(parse_addr_port(part, name=name) for part in text.split(",") if part.strip())


def default_workers(configured: int | None) -> int:
    """``serve --workers`` / ``HOOKPROOF_WORKERS``, else the number of cores."""
    return configured or os.cpu_count() or 1


def _float(env: Mapping[str, str], key: str, default: float) -> float:
    raw = env.get(key)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValidationError(f"{key}: not a number", field=key) from exc


def _clamped(env: Mapping[str, str], key: str, default: float, low: float, high: float) -> float:
    value = _float(env, key, default)
    return default if value != value else min(high, max(low, value))  # NaN: the default


def _int(env: Mapping[str, str], key: str, default: int | None) -> int | None:
    raw = env.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ValidationError(f"{key}: not an integer", field=key) from exc
    if value < 1:
        raise ValidationError(f"{key}: must be at least 1", field=key)
    return value


def _fraction(env: Mapping[str, str], key: str, default: float) -> float:
    """A share in (0, 1] (a duty cycle)."""
    value = _float(env, key, default)
    if not 0.0 < value <= 1.0:
        raise ValidationError(f"{key}: must be more than 0 and at most 1", field=key)
    return value


@dataclass(frozen=True)
class Settings:
    """Everything a command needs to know about its environment."""

    database_url: str | None = None
    #: ``HOOKPROOF_READ_DATABASE_URL``: a hot standby of the primary (streaming replication)
    #: the read routes, ``audit`` and ``projections rebuild --verify`` read from (None: the
    #: primary serves every read). docs/standby.md
    read_database_url: str | None = None
    #: ``HOOKPROOF_READ_WAIT_MS``: how long a read that must see the caller's own last write
    #: waits for the standby to replay past it before it reads the primary instead
    read_wait_s: float = 0.25
    listen_host: str = "127.0.0.1"
    listen_port: int = 8080
    master_key_b64: str | None = field(default=None, repr=False)
    #: ``HOOKPROOF_MASTER_KEY_FILE``: a file holding the master key (base64url), where the
    #: operator put it (created 0600 on first use when absent). engine/keys/master.py
    master_key_file: Path | None = None
    egress_allow: tuple[tuple[str, int], ...] = ()
    #: ``HOOKPROOF_EGRESS_PROXY``: ``http://host:port`` of the operator's forward proxy; every
    #: HTTPS connection to a subscriber is then ``CONNECT <vetted address>:<port>`` through it
    #: (DESIGN.md section 14). None: direct.
    egress_proxy: str | None = None
    egress_ca_file: str | None = None
    dns_servers: tuple[tuple[str, int], ...] = ()
    data_dir: Path = Path(".hookproof")
    #: ``HOOKPROOF_DATA_DIR`` is unset: the data dir is ``.hookproof`` under the working
    #: directory, a place an external database's master key is never looked for
    data_dir_default: bool = False
    egress_ports: tuple[int, ...] = (443, 8443)
    challenge_ttl_s: float = 300.0
    #: ``HOOKPROOF_BREAKER_OPEN``: seconds an endpoint's breaker stays open after it trips
    #: before one probe is let through (engine/delivery/gates.py)
    breaker_open_s: float = 30.0
    connect_timeout_s: float = 5.0
    request_timeout_s: float = 10.0
    #: ``HOOKPROOF_BODY_TIMEOUT``: seconds a request body may take to arrive whole (408 past it)
    body_timeout_s: float = 30.0
    #: ``HOOKPROOF_SCHEMA_DEADLINE_MS``: how long one payload's schema validation may take in
    #: the validation process before the payload is refused (``payload_too_complex``)
    schema_deadline_s: float = 1.0
    max_response_bytes: int = 64 * 1024
    max_queue_delay_s: float = 3600.0
    max_retry_window_s: float = 86400.0
    clock_skew_s: float = 300.0
    signature_lifetime_s: float = 300.0
    lease_margin_s: float = 30.0
    #: Retention (DESIGN section 11): ``HOOKPROOF_RETENTION_DAYS`` (unset: the daemon archives
    #: nothing; the CLI's default cutoff is 30 days), ``HOOKPROOF_ARCHIVE_DIR`` (default
    #: ``<data dir>/archive``), and how long a terminal delivery may still take a receipt or a
    #: replay before it counts as closed.
    retention_days: float | None = None
    archive_dir_override: Path | None = None
    receipt_window_s: float = 86400.0
    replay_window_s: float = 7 * 86400.0
    archive_remove_batch: int = 500
    archive_pause_s: float = 0.02
    archive_interval_s: float = 60.0
    #: the archive throttle (engine/archive/throttle.py): share of wall time a run may work,
    #: its share while delivery lags more than ``archive_max_lag_s`` (unless archival is
    #: more than ``archive_max_behind_s`` late), and how long the anchor waits for the log's
    #: lock before it retries later
    archive_duty: float = 0.5
    archive_min_duty: float = 0.5
    archive_max_lag_s: float = 2.0
    archive_max_behind_s: float = 120.0
    archive_lock_wait_ms: int = 100

    # the pinned egress pool (DESIGN.md section 5) and the DNS answer cache
    pool_idle_s: float = 15.0
    pool_max_age_s: float = 60.0
    pool_max_requests: int = 1000
    pool_max_idle: int = 512
    dns_cache_s: float = 30.0
    # ``hookproof serve --workers``: processes sharing the API port and the queue (None: cores)
    workers: int | None = None
    # (index, count) of this process among the ``--workers`` children: the dispatcher claims
    # its own share of the endpoints first, so each subscriber site is served by one worker
    # and its pooled connections (set by the supervisor; (0, 1): one process claims all)
    worker_slot: tuple[int, int] = (0, 1)
    # group commit of ``POST /v1/events``: how long a request waits for others to join its
    # transaction, at most how many events one transaction takes, and how many run at once
    ingest_group_window_s: float = 0.001
    ingest_group_max: int = 500
    ingest_group_inflight: int = 2
    #: ``HOOKPROOF_TOKEN_CACHE_S``: how long a worker may answer for an API token it verified
    #: without reading it again (0: every request reads it; at most 60). A token revoked with
    #: ``tenant revoke-token`` (the CLI is the only way to revoke one) stops working within
    #: this bound.
    token_cache_s: float = 1.0
    #: ``HOOKPROOF_STATS_INTERVAL_S``: the least time between two passes of the projector over
    #: the attempt statistics (``GET /v1/subscriptions/{id}/attempt-stats`` is at most about
    #: this far behind the log; 0.05..3600). Shorter: fresher counts, a little more WAL when
    #: many subscriptions each see a few attempts per pass (bench/HISTORY.md "Session 8").
    stats_interval_s: float = 5.0
    #: The environment the settings came from. Tokens and switches below are read from it
    #: when used, so an operator can set or rotate them without a restart.
    env: Mapping[str, str] = field(default_factory=lambda: os.environ, repr=False, compare=False)

    @property
    def admin_token(self) -> str | None:
        """``HOOKPROOF_ADMIN_TOKEN``: the operator token (unset: operator routes refuse)."""
        return self.env.get("HOOKPROOF_ADMIN_TOKEN") or None

    @property
    def metrics_token(self) -> str | None:
        """``HOOKPROOF_METRICS_TOKEN``: the scrape token for ``/metrics``."""
        return self.env.get("HOOKPROOF_METRICS_TOKEN") or None

    @property
    def client_url(self) -> str | None:
        """``HOOKPROOF_URL``: the engine a client command talks to (``hookproof listen``)."""
        return self.env.get("HOOKPROOF_URL") or None

    @property
    def client_token(self) -> str | None:
        """``HOOKPROOF_TOKEN``: the tenant or portal token of a client command."""
        return self.env.get("HOOKPROOF_TOKEN") or None

    @property
    def roles(self) -> frozenset[str]:
        """``HOOKPROOF_ROLES`` (comma-separated: api, dispatcher, projector, scheduler)."""
        raw = self.env.get("HOOKPROOF_ROLES", "api,dispatcher,projector,scheduler")
        return frozenset(r.strip() for r in raw.split(",") if r.strip())

    @property
    def receipts_url(self) -> str | None:
        """``HOOKPROOF_RECEIPTS_URL``, else ``HOOKPROOF_PUBLIC_URL`` + ``/v1/receipts``."""
        url = self.env.get("HOOKPROOF_RECEIPTS_URL")
        if url:
            return url
        base = self.env.get("HOOKPROOF_PUBLIC_URL")
        return base.rstrip("/") + "/v1/receipts" if base else None

    @property
    def receipt_timeout_s(self) -> float:
        """``HOOKPROOF_RECEIPT_TIMEOUT``: seconds before an unconfirmed delivery is resent."""
        return float(self.env.get("HOOKPROOF_RECEIPT_TIMEOUT") or 900.0)

    @property
    def receipt_refusal_interval_s(self) -> float:
        """``HOOKPROOF_RECEIPT_REFUSAL_INTERVAL``: seconds between the aggregated records of
        refused receipts (one per subscription per interval; 0: off)."""
        return float(self.env.get("HOOKPROOF_RECEIPT_REFUSAL_INTERVAL") or 300.0)

    @property
    def receipt_redeliveries(self) -> int:
        """``HOOKPROOF_RECEIPT_REDELIVERIES``: how many times at most."""
        return int(self.env.get("HOOKPROOF_RECEIPT_REDELIVERIES") or 3)

    @property
    def otel_exporter(self) -> str | None:
        """``HOOKPROOF_OTEL_EXPORTER`` (``otlp``, ``console``; the exporter itself reads the
        standard ``OTEL_EXPORTER_OTLP_*`` variables)."""
        return self.env.get("HOOKPROOF_OTEL_EXPORTER") or None

    @property
    def archive_crash_at(self) -> str | None:
        """``HOOKPROOF_ARCHIVE_CRASH_AT``: a crash point of the archive run (fault tests)."""
        return self.env.get("HOOKPROOF_ARCHIVE_CRASH_AT") or None

    @property
    def archive_dir(self) -> Path:
        return self.archive_dir_override or self.data_dir / "archive"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        listen = env.get("HOOKPROOF_LISTEN", "127.0.0.1:8080")
        if listen.startswith("["):
            lhost, _, lport = listen[1:].partition("]:")
        else:
            lhost, _, lport = listen.rpartition(":")
        if not lhost or not lport.isdigit():
            raise ValidationError(
                f"HOOKPROOF_LISTEN: expected host:port, got {listen!r}", field="HOOKPROOF_LISTEN"
            )
        ports = env.get("HOOKPROOF_EGRESS_PORTS")
        return cls(
            database_url=env.get("HOOKPROOF_DATABASE_URL") or None,
            read_database_url=env.get("HOOKPROOF_READ_DATABASE_URL") or None,
            read_wait_s=_clamped(env, "HOOKPROOF_READ_WAIT_MS", 250.0, 0.0, 10_000.0) / 1000,
            listen_host=lhost,
            listen_port=int(lport),
            master_key_b64=env.get("HOOKPROOF_MASTER_KEY") or None,
            master_key_file=(
                Path(env["HOOKPROOF_MASTER_KEY_FILE"])
                if env.get("HOOKPROOF_MASTER_KEY_FILE")
                else None
            ),
            egress_allow=parse_addr_port_list(
                env.get("HOOKPROOF_EGRESS_ALLOW"), name="HOOKPROOF_EGRESS_ALLOW"
            ),
            egress_ca_file=env.get("HOOKPROOF_EGRESS_CA_FILE") or None,
            egress_proxy=_proxy(env.get("HOOKPROOF_EGRESS_PROXY") or None),
            dns_servers=parse_addr_port_list(
                env.get("HOOKPROOF_DNS_SERVERS"), name="HOOKPROOF_DNS_SERVERS"
            ),
            data_dir=Path(env.get("HOOKPROOF_DATA_DIR") or ".hookproof"),
            data_dir_default=not env.get("HOOKPROOF_DATA_DIR"),
            egress_ports=tuple(int(p) for p in ports.split(",")) if ports else (443, 8443),
            challenge_ttl_s=_float(env, "HOOKPROOF_CHALLENGE_TTL", 300.0),
            connect_timeout_s=_float(env, "HOOKPROOF_CONNECT_TIMEOUT", 5.0),
            request_timeout_s=_float(env, "HOOKPROOF_REQUEST_TIMEOUT", 10.0),
            body_timeout_s=max(0.1, _float(env, "HOOKPROOF_BODY_TIMEOUT", 30.0)),
            schema_deadline_s=max(1.0, _float(env, "HOOKPROOF_SCHEMA_DEADLINE_MS", 1000.0)) / 1000,
            max_queue_delay_s=_float(env, "HOOKPROOF_MAX_QUEUE_DELAY", 3600.0),
            max_retry_window_s=_float(env, "HOOKPROOF_MAX_RETRY_WINDOW", 86400.0),
            clock_skew_s=_float(env, "HOOKPROOF_CLOCK_SKEW", 300.0),
            lease_margin_s=_float(env, "HOOKPROOF_LEASE_MARGIN", 30.0),
            breaker_open_s=_clamped(env, "HOOKPROOF_BREAKER_OPEN", 30.0, 0.01, 86400.0),
            retention_days=(
                _float(env, "HOOKPROOF_RETENTION_DAYS", 30.0)
                if env.get("HOOKPROOF_RETENTION_DAYS")
                else None
            ),
            archive_dir_override=(
                Path(env["HOOKPROOF_ARCHIVE_DIR"]) if env.get("HOOKPROOF_ARCHIVE_DIR") else None
            ),
            receipt_window_s=_float(env, "HOOKPROOF_RECEIPT_WINDOW", 86400.0),
            replay_window_s=_float(env, "HOOKPROOF_REPLAY_WINDOW", 7 * 86400.0),
            archive_remove_batch=max(1, int(_float(env, "HOOKPROOF_ARCHIVE_BATCH", 500))),
            archive_pause_s=_float(env, "HOOKPROOF_ARCHIVE_PAUSE", 0.02),
            archive_interval_s=_float(env, "HOOKPROOF_ARCHIVE_INTERVAL", 60.0),
            archive_duty=_fraction(env, "HOOKPROOF_ARCHIVE_DUTY", 0.5),
            archive_min_duty=_fraction(env, "HOOKPROOF_ARCHIVE_MIN_DUTY", 0.5),
            archive_max_lag_s=_float(env, "HOOKPROOF_ARCHIVE_MAX_LAG", 2.0),
            archive_max_behind_s=_float(env, "HOOKPROOF_ARCHIVE_MAX_BEHIND", 120.0),
            archive_lock_wait_ms=max(1, _int(env, "HOOKPROOF_ARCHIVE_LOCK_WAIT_MS", 100) or 100),
            pool_idle_s=_float(env, "HOOKPROOF_POOL_IDLE_S", 15.0),
            pool_max_age_s=_float(env, "HOOKPROOF_POOL_MAX_AGE_S", 60.0),
            pool_max_requests=_int(env, "HOOKPROOF_POOL_MAX_REQUESTS", 1000) or 1000,
            pool_max_idle=_int(env, "HOOKPROOF_POOL_MAX_IDLE", 512) or 512,
            dns_cache_s=_float(env, "HOOKPROOF_DNS_CACHE_S", 30.0),
            workers=_int(env, "HOOKPROOF_WORKERS", None),
            ingest_group_window_s=_float(env, "HOOKPROOF_INGEST_GROUP_WINDOW_MS", 1.0) / 1000,
            ingest_group_max=_int(env, "HOOKPROOF_INGEST_GROUP_MAX", 500) or 500,
            ingest_group_inflight=_int(env, "HOOKPROOF_INGEST_GROUP_INFLIGHT", 2) or 2,
            token_cache_s=min(
                TOKEN_CACHE_MAX_S, max(0.0, _float(env, "HOOKPROOF_TOKEN_CACHE_S", 1.0))
            ),
            stats_interval_s=_clamped(env, "HOOKPROOF_STATS_INTERVAL_S", 5.0, 0.05, 3600.0),
            env=env,
        )

    @property
    def verify_only_window_s(self) -> float:
        """How long a superseded key must stay VERIFY_ONLY (DESIGN.md section 6)."""
        return self.max_queue_delay_s + self.max_retry_window_s + self.clock_skew_s


def _proxy(value: str | None) -> str | None:
    """``HOOKPROOF_EGRESS_PROXY`` as given, when it is ``http://host:port`` (no user, path,
    query or fragment)."""
    if value is None:
        return None
    scheme, sep, rest = value.partition("://")
    host, _, port = rest.rstrip("/").rpartition(":")
    if (
        scheme != "http"
        or not sep
        or not host
        or not port.isdigit()
        or not 0 < int(port) < 65536
        or any(c in rest.rstrip("/") for c in "/@?#")
    ):
        raise ValidationError(
            f"HOOKPROOF_EGRESS_PROXY: expected http://host:port, got {value!r}",
            field="HOOKPROOF_EGRESS_PROXY",
        )
    return value


@dataclass(frozen=True)
class Variable:
    """One environment variable the engine reads: its default as shown, and what it does."""

    name: str
    default: str
    meaning: str


#: Every variable :class:`Settings` reads, in the README's order (``make config-table``
#: writes the README's table from it; ``tests/docs/test_config_table.py`` checks both ways).
VARIABLES: tuple[Variable, ...] = (
    Variable(
        "HOOKPROOF_DATABASE_URL",
        "unset",
        "libpq URL of the Postgres to use (TCP or Unix socket); unset: an embedded Postgres"
        " in `HOOKPROOF_DATA_DIR`",
    ),
    Variable(
        "HOOKPROOF_READ_DATABASE_URL",
        "unset",
        "a hot standby of that Postgres for the read routes, `audit` and"
        " `projections rebuild --verify` ([docs/standby.md](docs/standby.md))",
    ),
    Variable(
        "HOOKPROOF_READ_WAIT_MS",
        "250",
        "how long a read waits for the standby to replay the caller's own write, else the primary",
    ),
    Variable(
        "HOOKPROOF_DATA_DIR",
        "`.hookproof`",
        "the embedded Postgres (`pg/`), the master key file, `dev-endpoint` files, the archive",
    ),
    Variable("HOOKPROOF_LISTEN", "`127.0.0.1:8080`", "the API's address (`[::1]:8080` for IPv6)"),
    Variable(
        "HOOKPROOF_WORKERS",
        "cores",
        "processes of `serve` sharing the port and the queue (`--workers`)",
    ),
    Variable(
        "HOOKPROOF_ROLES", "`api,dispatcher,projector,scheduler`", "the roles this daemon runs"
    ),
    Variable(
        "HOOKPROOF_MASTER_KEY",
        "unset",
        "base64url of 32 random bytes; unset: `HOOKPROOF_MASTER_KEY_FILE`, else `master.key` in"
        " the data dir (created 0600 on first use; with `HOOKPROOF_DATABASE_URL`, only in a data"
        " dir set by `HOOKPROOF_DATA_DIR`)",
    ),
    Variable(
        "HOOKPROOF_MASTER_KEY_FILE",
        "unset",
        "a file holding the master key (created 0600 when absent); the database records the"
        " key's check value and every command refuses another key",
    ),
    Variable(
        "HOOKPROOF_ADMIN_TOKEN",
        "unset",
        "the operator token (operator routes answer 403 `admin_disabled` without it)",
    ),
    Variable(
        "HOOKPROOF_METRICS_TOKEN",
        "unset",
        "bearer token for `GET /metrics` (the operator token works too)",
    ),
    Variable(
        "HOOKPROOF_PUBLIC_URL",
        "unset",
        "the engine's public base URL (portal links; receipts at `/v1/receipts`)",
    ),
    Variable(
        "HOOKPROOF_RECEIPTS_URL",
        "`<public URL>/v1/receipts`",
        "the receipts URL subscribers sign (`@target-uri`)",
    ),
    Variable(
        "HOOKPROOF_EGRESS_ALLOW",
        "unset",
        "exact `address:port` pairs allowed despite the deny list and the port list"
        " (`[::1]:8443`); each applies to every tenant",
    ),
    Variable("HOOKPROOF_EGRESS_CA_FILE", "unset", "extra trusted CA bundle (PEM) for endpoints"),
    Variable("HOOKPROOF_EGRESS_PORTS", "`443,8443`", "the ports endpoints may use"),
    Variable(
        "HOOKPROOF_EGRESS_PROXY",
        "unset",
        "`http://host:port` of the operator's forward proxy (a fixed source address):"
        " `CONNECT <vetted address>:<port>`, TLS end to end; unset: direct",
    ),
    Variable(
        "HOOKPROOF_DNS_SERVERS", "system", "`address:port` list of the resolvers for endpoint names"
    ),
    Variable("HOOKPROOF_DNS_CACHE_S", "30", "an answer is kept at most min(TTL, this) seconds"),
    Variable("HOOKPROOF_CONNECT_TIMEOUT", "5", "seconds to connect to an endpoint"),
    Variable("HOOKPROOF_REQUEST_TIMEOUT", "10", "seconds for an endpoint's answer"),
    Variable(
        "HOOKPROOF_BODY_TIMEOUT",
        "30",
        "seconds a request body to the API may take to arrive (408 past it)",
    ),
    Variable(
        "HOOKPROOF_SCHEMA_DEADLINE_MS",
        "1000",
        "one payload's schema validation at most (`payload_too_complex`)",
    ),
    Variable("HOOKPROOF_CHALLENGE_TTL", "300", "seconds a challenge stays answerable"),
    Variable(
        "HOOKPROOF_MAX_QUEUE_DELAY",
        "3600",
        "seconds; with the next two, the VERIFY_ONLY window of a superseded key",
    ),
    Variable("HOOKPROOF_MAX_RETRY_WINDOW", "86400", "seconds of retries at most"),
    Variable("HOOKPROOF_CLOCK_SKEW", "300", "seconds of clock skew tolerated"),
    Variable("HOOKPROOF_LEASE_MARGIN", "30", "seconds added to a claimed attempt's lease"),
    Variable(
        "HOOKPROOF_BREAKER_OPEN",
        "30",
        "seconds an endpoint's circuit breaker stays open after it trips, before one probe",
    ),
    Variable(
        "HOOKPROOF_RECEIPT_TIMEOUT",
        "900",
        "seconds before a delivery awaiting its receipt is sent again",
    ),
    Variable("HOOKPROOF_RECEIPT_REDELIVERIES", "3", "how many times at most"),
    Variable(
        "HOOKPROOF_RECEIPT_REFUSAL_INTERVAL",
        "300",
        "seconds between the aggregated records of refused receipts (0: off)",
    ),
    Variable(
        "HOOKPROOF_RECEIPT_WINDOW", "86400", "seconds an accepted delivery may still take a receipt"
    ),
    Variable("HOOKPROOF_REPLAY_WINDOW", "604800", "seconds a dead letter may still be replayed"),
    Variable(
        "HOOKPROOF_TOKEN_CACHE_S",
        "1",
        "seconds a worker trusts an API token it verified (0..60; a revoked token stops within it)",
    ),
    Variable(
        "HOOKPROOF_STATS_INTERVAL_S",
        "5",
        "least seconds between projector passes over the attempt statistics (0.05..3600)",
    ),
    Variable(
        "HOOKPROOF_INGEST_GROUP_WINDOW_MS",
        "1",
        "how long an ingest waits for others to share its transaction",
    ),
    Variable("HOOKPROOF_INGEST_GROUP_MAX", "500", "events one ingest transaction takes at most"),
    Variable("HOOKPROOF_INGEST_GROUP_INFLIGHT", "2", "ingest transactions at once"),
    Variable("HOOKPROOF_POOL_IDLE_S", "15", "seconds a pooled endpoint connection may idle"),
    Variable("HOOKPROOF_POOL_MAX_AGE_S", "60", "seconds a pooled connection lives at most"),
    Variable(
        "HOOKPROOF_POOL_MAX_REQUESTS", "1000", "requests one pooled connection carries at most"
    ),
    Variable("HOOKPROOF_POOL_MAX_IDLE", "512", "idle connections per worker over all sites"),
    Variable(
        "HOOKPROOF_RETENTION_DAYS",
        "unset (off)",
        "archive closed deliveries older than this (docs/retention.md)",
    ),
    Variable("HOOKPROOF_ARCHIVE_DIR", "`<data dir>/archive`", "where archive segments go"),
    Variable("HOOKPROOF_ARCHIVE_INTERVAL", "60", "seconds between archive runs of `serve`"),
    Variable("HOOKPROOF_ARCHIVE_BATCH", "500", "streams removed per archive transaction"),
    Variable("HOOKPROOF_ARCHIVE_PAUSE", "0.02", "seconds between archive batches"),
    Variable("HOOKPROOF_ARCHIVE_DUTY", "0.5", "share of wall time an archive run may work"),
    Variable("HOOKPROOF_ARCHIVE_MIN_DUTY", "0.5", "its share while delivery lags (lower to yield)"),
    Variable("HOOKPROOF_ARCHIVE_MAX_LAG", "2", "seconds of delivery lag that lower the duty"),
    Variable(
        "HOOKPROOF_ARCHIVE_MAX_BEHIND",
        "120",
        "seconds archival may be late before the duty stays up",
    ),
    Variable(
        "HOOKPROOF_ARCHIVE_LOCK_WAIT_MS", "100", "how long the anchor waits for the log's lock"
    ),
    Variable(
        "HOOKPROOF_ARCHIVE_CRASH_AT", "unset", "a crash point of the archive run (fault tests only)"
    ),
    Variable(
        "HOOKPROOF_OTEL_EXPORTER",
        "unset",
        "`otlp` or `console`: spans per ingest, attempt and challenge"
        " (`OTEL_EXPORTER_OTLP_*` configure it)",
    ),
    Variable(
        "HOOKPROOF_URL",
        "`http://127.0.0.1:8080`",
        "the engine `hookproof listen` connects to (`--engine`)",
    ),
    Variable("HOOKPROOF_TOKEN", "unset", "the tenant or portal token of `hookproof listen`"),
)


def config_table(variables: tuple[Variable, ...] = VARIABLES) -> str:
    """The README's configuration table (Markdown)."""
    rows = ["| variable | default | what it does |", "| --- | --- | --- |"]
    rows += [f"| `{v.name}` | {v.default} | {v.meaning} |" for v in variables]
    return "\n".join(rows) + "\n"
