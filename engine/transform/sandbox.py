"""The sandbox's interface: ``Sandbox.run(code, input)`` gives an ``Output`` or a ``Failure``.

Runs go to a small pool of threads, each with its own QuickJS worker (runtime.py); WebAssembly
runs without the GIL, so a hostile script holds one thread up to its own bounds while the event
loop and the other threads go on. The module is compiled once, on first use.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import msgspec
import structlog

from hookproof.engine.transform.decide import (
    code_digest,
    decide,
    input_document,
    seed_words,
    stopped,
    webhook_document,
)
from hookproof.engine.transform.model import (
    Bounds,
    Digests,
    Failure,
    FailureKind,
    Result,
    TransformInput,
)
from hookproof.engine.transform.runtime import Worker, shared_engine
from hookproof.errors import ValidationError

__all__ = ["Sandbox"]

_log = structlog.get_logger("hookproof.transform")


class Sandbox:
    """A pool of ``workers`` sandbox threads under one set of ``bounds``."""

    def __init__(self, bounds: Bounds | None = None, *, workers: int = 2) -> None:
        self.bounds = bounds or Bounds()
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="hookproof-transform"
        )
        self._local = threading.local()
        self._lock = threading.Lock()
        self.workers_built = 0

    async def run(self, code: str, inp: TransformInput) -> Result:
        """Run ``code``'s ``handler`` on ``inp`` in a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.run_sync, code, inp)

    def run_sync(self, code: str, inp: TransformInput) -> Result:
        """The same, on the calling thread (its own worker)."""
        try:
            document = input_document(inp)
            webhook = json.dumps(webhook_document(inp), ensure_ascii=False, allow_nan=False)
        except (msgspec.EncodeError, TypeError, ValueError) as error:
            raise ValidationError(
                "the transformation's input is not JSON", code="transformation_input_invalid"
            ) from error
        digests = Digests(code_digest(code), _hex_sha256(document), None)
        size = len(code.encode("utf-8"))
        if size > self.bounds.code_bytes:
            message = f"the code is {size} bytes, over the cap of {self.bounds.code_bytes}"
            return Failure(FailureKind.SYNTAX, message, None, digests, 0)
        worker = self._worker()
        raw = worker.run(
            code,
            webhook,
            seed=seed_words(inp.seed),
            now_ms=inp.now_ms,
            fuel=self.bounds.fuel,
            timeout_s=self.bounds.timeout_s,
            output_chars=self.bounds.output_bytes,
        )
        if raw.envelope is None:
            assert raw.stopped_by is not None
            result: Result = stopped(raw.stopped_by, digests, raw.fuel_used)
        else:
            result = decide(raw.envelope, code, digests.input, self.bounds, raw.fuel_used)
        if isinstance(result, Failure):
            _log.info(
                "transform_failed",
                kind=result.kind.value,
                code_digest=digests.code,
                fuel_used=raw.fuel_used,
                worker_replaced=worker.spoiled,
            )
        return result

    def _worker(self) -> Worker:
        worker: Worker | None = getattr(self._local, "worker", None)
        if worker is None or worker.spoiled:
            with self._lock:
                self.workers_built += 1
            worker = Worker(
                shared_engine(),
                memory_bytes=self.bounds.memory_bytes,
                heap_bytes=self.bounds.heap_bytes,
            )
            self._local.worker = worker
        return worker

    async def start(self) -> None:
        """Compile the module (once per process) now rather than on the first run."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._worker)

    def close(self) -> None:
        """Stop the threads (the compiled module stays for the process's next sandbox)."""
        self._executor.shutdown(wait=True)


def _hex_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
