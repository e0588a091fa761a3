"""The WebAssembly adapter under the library (engine/transform/runtime.py, wasi.py): the store's
memory cap is the one that holds when QuickJS's own heap limit is set above it, a worker's
snapshot gives every run the same start, and every import of the module is answered by the
hermetic WASI layer."""

from __future__ import annotations

import json

import wasmtime

from hookproof.engine.transform.runtime import Worker, shared_engine
from hookproof.engine.transform.wasi import WASI

RUN = {
    "seed": (1, 2, 3, 4),
    "now_ms": 0,
    "fuel": 500_000_000,
    "timeout_s": 5.0,
    "output_chars": 1 << 20,
}
WEBHOOK = json.dumps(
    {"payload": {}, "eventType": "t", "method": "POST", "url": "/", "cancel": False}
)


def envelope_of(raw: object) -> dict[str, object]:
    envelope = getattr(raw, "envelope", None)
    assert envelope is not None, raw
    doc = json.loads(envelope)
    assert isinstance(doc, dict)
    return doc


def test_the_store_cap_holds_when_the_heap_limit_is_above_it() -> None:
    cap = 8 * 1024 * 1024
    worker = Worker(shared_engine(), memory_bytes=cap, heap_bytes=1024 * 1024 * 1024)
    code = "function handler(w) { const a = []; for (;;) a.push('x'.repeat(1000) + a.length); }"
    raw = worker.run(code, WEBHOOK, **RUN)  # type: ignore[arg-type]
    assert raw.stopped_by == "memory" or envelope_of(raw)["error"]["kind"] == "memory"  # type: ignore[index]
    assert worker.memory_bytes <= cap


def test_a_worker_runs_from_its_snapshot_every_time() -> None:
    worker = Worker(shared_engine(), memory_bytes=64 * 1024 * 1024, heap_bytes=32 * 1024 * 1024)
    code = """
      globalThis.counter = (globalThis.counter || 0) + 1;
      function handler(w) { w.payload = { counter: counter, ran: typeof __hookproof_runner }; return w; }
    """
    outputs = {json.dumps(envelope_of(worker.run(code, WEBHOOK, **RUN))) for _ in range(5)}  # type: ignore[arg-type]
    # the runner removed itself before the tenant's code ran; the counter never carries over
    assert outputs == {
        json.dumps(
            {
                "ok": {
                    "payload": {"counter": 1, "ran": "undefined"},
                    "method": "POST",
                    "url": "/",
                    "cancel": False,
                }
            }
        )
    }
    assert not worker.spoiled


def test_a_trap_spoils_the_worker() -> None:
    worker = Worker(shared_engine(), memory_bytes=64 * 1024 * 1024, heap_bytes=32 * 1024 * 1024)
    raw = worker.run("function handler(w) { for (;;) {} }", WEBHOOK, **{**RUN, "fuel": 10_000_000})  # type: ignore[arg-type]
    assert raw.stopped_by == "fuel" and raw.fuel_used == 10_000_000
    assert worker.spoiled


def test_every_import_of_the_module_is_wasi_and_answered_by_the_hermetic_layer() -> None:
    engine = shared_engine()
    imports = engine.module.imports
    assert imports and {item.module for item in imports} == {WASI}
    # the shared linker defines them all: instantiating needs nothing else (no wasmtime WASI)
    store = wasmtime.Store(engine.engine)
    store.set_fuel(10_000_000)
    store.set_epoch_deadline(1_000)
    instance = engine.linker.instantiate(store, engine.module)
    assert "JS_Eval" in instance.exports(store)
