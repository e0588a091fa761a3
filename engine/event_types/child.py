"""The validation process (``engine/event_types/offload.py``): frames in on stdin, out on stdout.

Each request names a schema by the digest of its canonical JSON (and carries the JSON when
this process may not have compiled it yet); compiled schemas are kept in a bounded memo. The
answer is the same one-pass report as inline validation. Ends when stdin closes.
"""

from __future__ import annotations

import sys

import msgspec

from hookproof.engine.common.memo import BoundedMemo
from hookproof.engine.event_types.limits import Compiled, collect_errors, compile_schema
from hookproof.engine.event_types.offload import READY, Reply, Request, read_frame, write_frame

__all__ = ["main"]

#: schemas one validation process keeps compiled
MEMO_SCHEMAS = 256


def main() -> None:
    inp = sys.stdin.buffer
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames may reach the parent's pipe
    memo: BoundedMemo[str, Compiled] = BoundedMemo(MEMO_SCHEMAS)
    requests = msgspec.msgpack.Decoder(Request)
    out.write(READY)
    out.flush()
    while True:
        header = inp.read(4)
        if len(header) < 4:
            return
        request = requests.decode(inp.read(read_frame(header)))
        write_frame(out, _answer(memo, request))
        out.flush()


def _answer(memo: BoundedMemo[str, Compiled], request: Request) -> Reply:
    compiled = memo.get(request.digest)
    try:
        if compiled is None:
            if request.schema is None:
                return Reply("unknown")
            compiled = compile_schema(msgspec.json.decode(request.schema))
            memo.put(request.digest, compiled)
        instance = msgspec.json.decode(request.payload)
        return Reply("ok", collect_errors(compiled.validator, instance, request.report_all))
    except Exception as exc:  # an answer, never a dead pipe
        return Reply("failed", [{"pointer": "", "message": type(exc).__name__}])


if __name__ == "__main__":
    main()
