"""Session 6 (issue 23): CPU per request/response cycle of the HTTP/1.1 pieces the egress could
be built on, in one process, same bytes: h11 (sans-I/O: request events written and the answer
parsed by its state machine) against the adapter's own head (``request_head``) plus llhttp
(``httptools.HttpResponseParser``). A webhook-sized request (11 fields, 300-byte body) and a
small answer. Not a test; prints and saves JSON (``--output``).

    python bench/bench_http_parsers.py [--cycles 20000] [--output PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import h11
import httptools

from hookproof.engine.egress.adapter import _Target, request_head

RESULTS = Path(__file__).resolve().parent / "results" / "s6_egress_parsers.json"
FIELDS = [
    ("User-Agent", "hookproof-egress/1"),
    ("Accept-Encoding", "identity"),
    ("Content-Type", "application/json"),
    ("Webhook-Id", "msg_123"),
    ("Webhook-Timestamp", "1700000000"),
    ("Signature", "sig1=:" + "A" * 88 + ":"),
    ("Signature-Input", 'sig1=("@method" "@target-uri" "content-digest");created=1;keyid="k1"'),
    ("Content-Digest", "sha-256=:" + "B" * 44 + ":"),
]
BODY = b"x" * 300
ANSWER = (
    b"HTTP/1.1 204 No Content\r\nDate: Tue, 01 Dec 2026 13:00:00 GMT\r\n"
    b"Server: Python/3.11 aiohttp/3.14\r\n\r\n"
)


def h11_cycles(n: int) -> float:
    conn = h11.Connection(h11.CLIENT)
    fields = [("Host", "hooks.test:8443"), *FIELDS, ("Accept", "*/*"), ("Content-Length", "300")]
    start = time.process_time()
    for _ in range(n):
        out = conn.send(h11.Request(method="POST", target="/in?x=1", headers=fields))
        out += conn.send(h11.Data(data=BODY)) + conn.send(h11.EndOfMessage())
        conn.receive_data(ANSWER)
        while type(conn.next_event()) is not h11.EndOfMessage:
            pass
        conn.start_next_cycle()
    return (time.process_time() - start) / n * 1e6


class _Callbacks:
    def __init__(self) -> None:
        self.headers: list[tuple[bytes, bytes]] = []
        self.done = False

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_message_complete(self) -> None:
        self.done = True


def llhttp_cycles(n: int) -> float:
    target = _Target("https://hooks.test:8443/in?x=1")
    start = time.process_time()
    for _ in range(n):
        out = request_head(target, FIELDS, len(BODY), close=False) + BODY
        cb = _Callbacks()
        parser = httptools.HttpResponseParser(cb)
        parser.feed_data(ANSWER)
        assert cb.done and parser.get_status_code() == 204 and parser.should_keep_alive()
        _ = [(k.decode(), v.decode()) for k, v in cb.headers], out
    return (time.process_time() - start) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    rows: dict[str, list[float]] = {"h11": [], "request_head+llhttp": []}
    for _ in range(args.rounds):  # alternated, best of the rounds is the least disturbed
        rows["h11"].append(h11_cycles(args.cycles))
        rows["request_head+llhttp"].append(llhttp_cycles(args.cycles))
    out = {
        "benchmark": "http parsers, CPU us per request/response cycle",
        "cycles": args.cycles,
        "us_per_cycle": {k: [round(x, 2) for x in v] for k, v in rows.items()},
        "best_us": {k: round(min(v), 2) for k, v in rows.items()},
        "loadavg_end": list(os.getloadavg()),
        "h11": h11.__version__,
        "httptools": httptools.__version__,
    }
    for k, v in out["best_us"].items():
        print(f"{k:24} best {v:7.2f} us/cycle  all {out['us_per_cycle'][k]}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
