"""The engine's jobs: workers it runs until stopped, and background jobs it owns."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog

__all__ = ["BackgroundJobs", "Closer", "Periodic", "Worker"]

log = structlog.get_logger("hookproof.daemon")

#: runs until the event is set (``serve`` supervises it, restarting it after a crash)
Worker = Callable[[asyncio.Event], Awaitable[None]]
#: a step of the engine's stop (a settler or a closer)
Closer = Callable[[], Awaitable[None]]


class Periodic:
    """A worker that calls ``tick`` every ``interval_s`` seconds until stopped; a tick that
    raises is logged (``worker_tick_failed``) and the next one runs as planned."""

    __slots__ = ("interval_s", "name", "tick")

    def __init__(self, name: str, interval_s: float, tick: Callable[[], Awaitable[Any]]) -> None:
        self.name = name
        self.interval_s = interval_s
        self.tick = tick

    async def __call__(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.tick()
            except Exception as exc:  # a worker must survive a bad tick; the log says why
                log.warning("worker_tick_failed", worker=self.name, error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval_s)


class BackgroundJobs:
    """Jobs the engine starts on the side (a registration's challenge): awaited by ``drain``,
    cancelled by ``cancel`` when the engine closes."""

    __slots__ = ("_tasks",)

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, wait_s: float = 30.0) -> None:
        """Wait until no job is left (tests and the demo use it for determinism)."""
        while self._tasks:
            await asyncio.wait(list(self._tasks), timeout=wait_s)

    async def cancel(self, wait_s: float = 5.0) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=wait_s)
