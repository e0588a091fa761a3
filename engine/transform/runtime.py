"""The WebAssembly adapter: QuickJS-NG compiled to WASI, run under wasmtime (DESIGN.md
section 17; docs/transformations.md argues the choice and gives the figures).

Bounds: wasmtime fuel (an instruction budget, deterministic: a replay runs out at the same
instruction), a store limit on linear memory with QuickJS's own heap limit inside it, and
epoch interruption for wall clock (a ticker thread advances the engine's epoch). The C stack
lives below the data in linear memory, so a runaway recursion traps on an out-of-bounds access
instead of overwriting anything.

Fresh state per run, cheaply: a ``Worker`` instantiates the module once, creates the QuickJS
runtime and context and evaluates ``runner.js``, then copies its whole linear memory as a
snapshot. Every run first writes the snapshot back over the memory (QuickJS and libc keep all
their state there; the only mutable WebAssembly global, the stack pointer, is back at its base
whenever control returns to the host normally). A run that traps, or that grew the memory,
spoils the worker; the pool builds a new one.
"""

from __future__ import annotations

import importlib.resources
import json
import threading
from dataclasses import dataclass
from typing import Protocol

import wasmtime

from hookproof.engine.transform.wasi import FixedClock, define_hermetic_wasi


class _Exports(Protocol):
    """What an instance's exports offer here (wasmtime does not export its own type)."""

    def __getitem__(self, name: str, /) -> object: ...


__all__ = ["TICK_S", "RawRun", "WasmQuickJs", "Worker", "shared_engine"]

_RUNNER = importlib.resources.files(__package__).joinpath("runner.js").read_text("utf-8")
_WASM_PACKAGE = "qjs-wasi-reactor"
_WASM_FILE = "qjs-wasi-reactor.wasm"
#: the ticker's period: the wall-clock cap is counted in ticks
TICK_S = 0.01
#: fuel for building a worker (instantiation, runtime, context, runner.js): about 1.5 million
_SETUP_FUEL = 50_000_000
_SETUP_TICKS = 1_000


@dataclass(frozen=True, slots=True)
class RawRun:
    """What one run produced: the envelope's bytes, or the bound that stopped it
    (``"fuel"``, ``"timeout"``, ``"memory"``, ``"output_too_large"``), and the fuel spent."""

    envelope: bytes | None
    stopped_by: str | None
    fuel_used: int


_SHARED: WasmQuickJs | None = None
_SHARED_LOCK = threading.Lock()


def shared_engine() -> WasmQuickJs:
    """The process's one compiled module (compiling takes seconds; it is done once)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = WasmQuickJs()
        return _SHARED


class WasmQuickJs:
    """The engine, the compiled module and the hermetic linker, shared by every worker; its
    ticker is a daemon thread that lives as long as the process."""

    def __init__(self) -> None:
        config = wasmtime.Config()
        config.consume_fuel = True
        config.epoch_interruption = True
        self.engine = wasmtime.Engine(config)
        wasm = importlib.resources.files(_WASM_PACKAGE).joinpath(_WASM_FILE).read_bytes()
        self.module = wasmtime.Module(self.engine, wasm)
        self.clock = FixedClock()
        self.linker = wasmtime.Linker(self.engine)
        define_hermetic_wasi(self.linker, self.module, self.clock)
        self._stop = threading.Event()
        self._ticker = threading.Thread(
            target=self._tick, name="hookproof-transform-epoch", daemon=True
        )
        self._ticker.start()

    def close(self) -> None:
        self._stop.set()
        self._ticker.join()

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            self.engine.increment_epoch()


class Worker:
    """One instance and its snapshot; used by one thread at a time."""

    def __init__(self, shared: WasmQuickJs, *, memory_bytes: int, heap_bytes: int) -> None:
        self._shared = shared
        self.spoiled = False
        store = wasmtime.Store(shared.engine)
        store.set_limits(memory_size=memory_bytes, instances=1, tables=1, memories=1)
        store.set_fuel(_SETUP_FUEL)
        store.set_epoch_deadline(_SETUP_TICKS)
        shared.clock.now_ns = 0
        instance = shared.linker.instantiate(store, shared.module)
        exports = instance.exports(store)
        memory = exports["memory"]
        assert isinstance(memory, wasmtime.Memory)
        self._store = store
        self._memory = memory
        self._funcs: dict[str, wasmtime.Func] = {}
        for name in ("malloc", "JS_Eval", "JS_HasException", "JS_ToCStringLen2"):
            func = exports[name]
            assert isinstance(func, wasmtime.Func)
            self._funcs[name] = func
        self._call_export(exports, "_initialize")
        runtime = self._call_export(exports, "JS_NewRuntime")
        self._call_export(exports, "JS_SetMemoryLimit", runtime, heap_bytes)
        self._ctx = self._call_export(exports, "JS_NewContext", runtime)
        if not self._ctx or self._eval(f"globalThis.__hookproof_runner = {_RUNNER};") is None:
            raise RuntimeError("the QuickJS module did not start")
        self._size = memory.data_len(store)
        self._snapshot = bytes(memory.read(store, 0, self._size))

    @property
    def memory_bytes(self) -> int:
        """The size of this worker's linear memory (the snapshot's size until a run grows it)."""
        return int(self._memory.data_len(self._store))

    def _call_export(self, exports: _Exports, name: str, *args: int) -> int:
        func = exports[name]
        assert isinstance(func, wasmtime.Func)
        result = func(self._store, *args)
        return int(result) if result is not None else 0

    def _call(self, name: str, *args: int) -> int:
        return int(self._funcs[name](self._store, *args))

    def _eval(self, source: str) -> int | None:
        data = source.encode("utf-8")
        src = self._call("malloc", len(data) + 1)
        name = self._call("malloc", 16)
        if not src or not name:
            return None
        self._memory.write(self._store, data + b"\0", src)
        self._memory.write(self._store, b"runner.js\0", name)
        value = self._call("JS_Eval", self._ctx, src, len(data), name, 0)
        return None if self._call("JS_HasException", self._ctx) else value

    def run(
        self,
        code: str,
        webhook_json: str,
        *,
        seed: tuple[int, int, int, int],
        now_ms: int,
        fuel: int,
        timeout_s: float,
        output_chars: int,
    ) -> RawRun:
        """Run ``handler`` on the webhook from the clean snapshot, within the bounds."""
        assert not self.spoiled
        self._memory.write(self._store, self._snapshot, 0)
        self._store.set_fuel(fuel)
        self._store.set_epoch_deadline(max(1, round(timeout_s / TICK_S)) + 1)
        self._shared.clock.now_ns = now_ms * 1_000_000
        setup = f"__hookproof_runner({json.dumps(list(seed))}, {output_chars})"
        call = f"{setup}({json.dumps(code)}, {json.dumps(webhook_json)})"
        try:
            envelope, stopped_by = self._read(self._eval(call), output_chars)
        except wasmtime.Trap as trap:
            self.spoiled = True
            return RawRun(None, _trap_bound(trap), fuel - self._store.get_fuel())
        except wasmtime.WasmtimeError:
            self.spoiled = True
            return RawRun(None, "memory", fuel - self._store.get_fuel())
        if self._memory.data_len(self._store) != self._size:
            self.spoiled = True
        return RawRun(envelope, stopped_by, fuel - self._store.get_fuel())

    def _read(self, value: int | None, output_chars: int) -> tuple[bytes | None, str | None]:
        # only memory exhausted while describing an error escapes runner.js as an exception
        if value is None:
            return None, "memory"
        size_ptr = self._call("malloc", 4)
        cstr = self._call("JS_ToCStringLen2", self._ctx, size_ptr, value, 0) if size_ptr else 0
        if not cstr:
            return None, "memory"
        size = int.from_bytes(self._memory.read(self._store, size_ptr, size_ptr + 4), "little")
        # runner.js capped the characters; a UTF-8 character is at most four bytes
        if size > 4 * output_chars + 4096:
            return None, "output_too_large"
        return bytes(self._memory.read(self._store, cstr, cstr + size)), None


def _trap_bound(trap: wasmtime.Trap) -> str:
    code = trap.trap_code
    if code == wasmtime.TrapCode.OUT_OF_FUEL:
        return "fuel"
    if code == wasmtime.TrapCode.INTERRUPT:
        return "timeout"
    # the C stack below the data ran out (an out-of-bounds access), the engine's own stack
    # overflowed, or QuickJS aborted on a failed allocation
    return "memory"
