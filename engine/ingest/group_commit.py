"""Group commit: concurrent callers' items are committed together, each caller gets its own answer.

A caller's item waits at most ``window_s`` for others to join it (or until ``max_group`` have),
then the group is handed to ``commit(items) -> answers`` (one answer per item, in order: a
value, or an exception meant for that caller alone). At most ``max_inflight`` groups run at
once; while they do, new items gather into the next group, so under load groups grow by
themselves and an idle engine adds at most ``window_s`` to a request. No I/O of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["GroupCommit"]

T = TypeVar("T")
R = TypeVar("R")


class GroupCommit(Generic[T, R]):
    def __init__(
        self,
        commit: Callable[[list[T]], Awaitable[Sequence[R | BaseException]]],
        *,
        window_s: float = 0.001,
        max_group: int = 500,
        max_inflight: int = 2,
    ) -> None:
        if max_group < 1 or max_inflight < 1 or window_s < 0:
            raise ValueError("group commit limits must be positive")
        self._commit = commit
        self.window_s = window_s
        self.max_group = max_group
        self.max_inflight = max_inflight
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._inflight = 0
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: groups committed and items in them (for metrics and the benchmark)
        self.groups = 0
        self.items = 0

    async def submit(self, item: T) -> R:
        """Commit ``item`` with whatever else is waiting; its own answer, or its own error."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[R] = loop.create_future()
        self._pending.append((item, fut))
        if len(self._pending) >= self.max_group:
            self._flush()
        elif self._timer is None and self._inflight < self.max_inflight:
            self._timer = loop.call_later(self.window_s, self._flush)
        return await fut

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._pending and self._inflight < self.max_inflight:
            group = self._pending[: self.max_group]
            del self._pending[: self.max_group]
            self._inflight += 1
            task = asyncio.ensure_future(self._run(group))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, group: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            answers = await self._commit([item for item, _ in group])
            if len(answers) != len(group):
                raise RuntimeError("group commit returned a wrong number of answers")
            for (_, fut), answer in zip(group, answers, strict=True):
                if fut.done():
                    continue
                if isinstance(answer, BaseException):
                    fut.set_exception(answer)
                else:
                    fut.set_result(answer)
        except BaseException as exc:  # the whole group failed: every caller hears why
            for _, fut in group:
                if not fut.done():
                    fut.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self.groups += 1
            self.items += len(group)
            self._inflight -= 1
            if self._pending:  # they gathered while this group committed: their turn now
                self._flush()

    async def close(self) -> None:
        """Let the groups in flight finish (pending items are flushed first)."""
        self._flush()
        while self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.gather(*list(self._tasks), return_exceptions=True)
