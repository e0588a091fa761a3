"""A hermetic WASI preview 1 for the sandbox: no file, no socket, no environment, a fixed clock.

Every import the QuickJS module declares is answered here, never by wasmtime's own WASI: file
and directory calls answer ``ENOTCAPABLE`` (no preopened directory exists, so ``fd_prestat_get``
ends the list at once), ``fd_write`` discards, ``environ_*`` report none, and
``clock_time_get`` answers the run's fixed time (the caller's ``now``), so ``Date.now()`` and
``new Date()`` are the same on a replay. ``proc_exit`` traps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import wasmtime

__all__ = ["ERRNO_BADF", "ERRNO_NOTCAPABLE", "FixedClock", "define_hermetic_wasi"]

WASI = "wasi_snapshot_preview1"
ERRNO_SUCCESS = 0
ERRNO_BADF = 8
ERRNO_NOTCAPABLE = 76


class FixedClock(threading.local):
    """The time of the run on this thread, in nanoseconds since the epoch; runs are
    synchronous on one thread, so a thread-local is the run's own."""

    def __init__(self) -> None:
        self.now_ns = 0


def _memory(caller: wasmtime.Caller) -> wasmtime.Memory:
    memory = caller["memory"]
    assert isinstance(memory, wasmtime.Memory)
    return memory


def define_hermetic_wasi(
    linker: wasmtime.Linker, module: wasmtime.Module, clock: FixedClock
) -> None:
    """Define every WASI import of ``module`` on ``linker``."""

    def clock_time_get(caller: wasmtime.Caller, clock_id: int, precision: int, out: int) -> int:
        # realtime is the run's time; the monotonic and CPU clocks stand still at zero
        value = clock.now_ns if clock_id == 0 else 0
        _memory(caller).write(caller, value.to_bytes(8, "little"), out)
        return ERRNO_SUCCESS

    def environ_sizes_get(caller: wasmtime.Caller, count: int, size: int) -> int:
        _memory(caller).write(caller, bytes(4), count)
        _memory(caller).write(caller, bytes(4), size)
        return ERRNO_SUCCESS

    special: dict[str, Callable[..., Any]] = {
        "clock_time_get": clock_time_get,
        "environ_sizes_get": environ_sizes_get,
        "args_sizes_get": environ_sizes_get,
    }
    for item in module.imports:
        if item.module != WASI or item.name is None:
            continue
        ty = item.type
        assert isinstance(ty, wasmtime.FuncType)
        func = special.get(item.name)
        if func is None:
            func = _refuse(item.name, ty)
        linker.define_func(WASI, item.name, ty, func, access_caller=True)


def _refuse(name: str, ty: wasmtime.FuncType) -> Callable[..., Any]:
    if not ty.results:

        def trap(caller: wasmtime.Caller, *args: Any) -> None:
            raise wasmtime.Trap(f"the sandbox refuses {name}")

        return trap
    errno = ERRNO_SUCCESS if name in {"environ_get", "args_get"} else ERRNO_NOTCAPABLE
    if name.startswith("fd_") and name != "fd_prestat_dir_name":
        errno = ERRNO_BADF

    def refuse(caller: wasmtime.Caller, *args: Any) -> int:
        return errno

    return refuse
