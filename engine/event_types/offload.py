"""Schema validation off the event loop, with a deadline.

jsonschema-rs holds the GIL for a whole validation (measured: a 1.5 s validation in a thread
stopped a 5 ms ticker in the main thread for 1.58 s), so a thread would not keep the loop
answering. A validation whose price (``Compiled.work``) is at most ``inline_work`` runs
inline: that is every ordinary payload (the bench order validates in 6-16 us; the bound is
about 15 ms of worst case). A dearer one goes to a validation process of its own
(``python -m hookproof.engine.event_types.child``, started on first need, one validation at a
time) and must answer within ``deadline_s``: past it the process is killed (and started
again for the next one) and the payload is refused (:class:`ValidationDeadline`). The
process compiles each schema once from its canonical JSON (by digest) and answers with the
same one-pass error report as inline validation.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
import sys
from typing import Any

import msgspec
import structlog

from hookproof.errors import HookproofError, ValidationError

from .limits import MAX_WORK, Compiled, errors_of, reports_all

__all__ = [
    "DEADLINE_S",
    "INLINE_WORK",
    "READY",
    "Reply",
    "Request",
    "SchemaValidator",
    "ValidationDeadline",
    "read_frame",
    "write_frame",
]

log = structlog.get_logger("hookproof.event_types")
#: priced work validated inline, on the loop (30 ns a unit: at most ~15 ms; the bench order,
#: priced ~196,000 for its seven regexes, validates in 6-16 us)
INLINE_WORK = 500_000
#: how long the validation process may take for one payload (priced at most ~60 ms)
DEADLINE_S = 1.0
_HEADER = struct.Struct(">I")
#: what the validation process writes once it can take requests, and how long it may take
READY = b"hookproof-validator-ready\n"
_STARTUP_S = 60.0
_MAX_FRAME = 64 * 1024 * 1024


class ValidationDeadline(HookproofError):
    """A validation ran past its deadline (the payload is refused as too complex)."""

    code = "payload_too_complex"
    status = 400
    title = "Payload too complex"


class Request(msgspec.Struct, array_like=True, frozen=True):
    """To the validation process: the schema's digest, its canonical JSON when the process
    may not have it, the payload's JSON, and whether every error is reported."""

    digest: str
    schema: bytes | None
    payload: bytes
    report_all: bool


class Reply(msgspec.Struct, array_like=True, frozen=True):
    """``status``: ``ok`` (``errors``: empty is valid), ``unknown`` (send the schema) or
    ``failed`` (``errors`` says why)."""

    status: str
    errors: list[dict[str, str]] = []


_ENC = msgspec.msgpack.Encoder()


def write_frame(out: Any, message: msgspec.Struct) -> bytes:
    """One length-prefixed msgpack frame (written to ``out`` when it is given)."""
    body = _ENC.encode(message)
    frame = _HEADER.pack(len(body)) + body
    if out is not None:
        out.write(frame)
    return frame


def read_frame(header: bytes) -> int:
    """The length a frame header announces (refused past a sane bound)."""
    (n,) = _HEADER.unpack(header)
    if n > _MAX_FRAME:
        raise ValueError("frame too large")
    return int(n)


class SchemaValidator:
    """Validates payloads inline when they are cheap, in the validation process otherwise."""

    def __init__(self, *, deadline_s: float = DEADLINE_S, inline_work: int = INLINE_WORK) -> None:
        self.deadline_s = deadline_s
        self.inline_work = inline_work
        self._proc: asyncio.subprocess.Process | None = None
        self._known: set[str] = set()  # schema digests the running process has compiled
        self._lock = asyncio.Lock()
        self._warming: asyncio.Task[None] | None = None
        self._reply = msgspec.msgpack.Decoder(Reply)
        #: validations sent to the process, and those killed at the deadline (metrics, tests)
        self.offloaded = 0
        self.deadlines = 0

    def warm(self) -> None:
        """Start the validation process in the background (its start-up, 0.3 s idle and
        seconds on a loaded machine, is then not the first dear payload's wait)."""
        if self._warming is None and (self._proc is None or self._proc.returncode is not None):
            self._warming = asyncio.get_running_loop().create_task(self._warm())

    async def _warm(self) -> None:
        try:
            async with self._lock:
                await self._process()
        except Exception as exc:  # the first dear payload tries again, and says why
            log.warning("schema_validator_warm_failed", error=type(exc).__name__)
        finally:
            self._warming = None

    def inline(self, compiled: Compiled, encoded: bytes) -> bool:
        """Whether validating ``encoded`` with ``compiled`` is cheap enough for the loop."""
        return compiled.work(encoded) <= min(self.inline_work, MAX_WORK)

    async def errors(
        self, compiled: Compiled, instance: Any, encoded: bytes
    ) -> list[dict[str, str]]:
        """``limits.errors_of``, inline or in the validation process (``ValidationDeadline``
        when that takes longer than the deadline or the process dies). ``encoded`` prices
        it."""
        if self.inline(compiled, encoded):
            return errors_of(compiled, instance, encoded)
        payload = msgspec.json.encode(instance)
        report_all = reports_all(compiled, encoded)
        async with self._lock:
            for _ in range(2):
                proc = await self._process()
                schema = None if compiled.digest in self._known else compiled.source
                reply = await self._ask(proc, Request(compiled.digest, schema, payload, report_all))
                if reply.status == "ok":
                    self._known.add(compiled.digest)
                    return reply.errors
                if reply.status != "unknown":
                    break
                self._known.discard(compiled.digest)  # the process forgot it: send it again
        # the validator refused this payload itself (an error that is not a verdict)
        raise ValidationError("the payload cannot be validated as given", code="invalid_data")

    async def _process(self) -> asyncio.subprocess.Process:
        if self._proc is not None and self._proc.returncode is None:
            return self._proc
        self._known.clear()
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "hookproof.engine.event_types.child",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        proc = self._proc
        assert proc.stdout is not None
        try:  # its imports are not the first payload's time: it says when it is ready
            async with asyncio.timeout(_STARTUP_S):
                ready = await proc.stdout.readexactly(len(READY))
        except (TimeoutError, asyncio.IncompleteReadError):
            ready = b""
        if ready != READY:
            await self._kill(proc, "startup")
            raise ValidationDeadline(
                "the validation process did not start: send the payload again", field="payload"
            )
        log.info("schema_validator_started", pid=proc.pid)
        return proc

    async def _ask(self, proc: asyncio.subprocess.Process, request: Request) -> Reply:
        assert proc.stdin is not None and proc.stdout is not None
        self.offloaded += 1
        try:
            async with asyncio.timeout(self.deadline_s):
                proc.stdin.write(write_frame(None, request))
                await proc.stdin.drain()
                n = read_frame(await proc.stdout.readexactly(_HEADER.size))
                return self._reply.decode(await proc.stdout.readexactly(n))
        except TimeoutError:
            self.deadlines += 1
            await self._kill(proc, "deadline")
            raise ValidationDeadline(
                f"validating this payload took longer than {self.deadline_s * 1000:g} ms: "
                "send a smaller payload or simplify the schema",
                field="payload",
            ) from None
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, msgspec.DecodeError):
            await self._kill(proc, "ended")
            raise ValidationDeadline(
                "the validation of this payload did not finish: send a smaller payload or "
                "simplify the schema",
                field="payload",
            ) from None
        except BaseException:  # cancelled mid-exchange: the process's answer would be stray
            self._forget(proc)
            raise

    def _forget(self, proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        if self._proc is proc:
            self._proc = None
            self._known.clear()

    async def _kill(self, proc: asyncio.subprocess.Process, reason: str) -> None:
        log.warning("schema_validator_killed", pid=proc.pid, reason=reason)
        self._forget(proc)
        await proc.wait()

    async def close(self) -> None:
        """End the validation process (its stdin closes; killed if it lingers)."""
        if self._warming is not None:
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming
        proc, self._proc = self._proc, None
        if proc is None or proc.returncode is not None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 2)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
