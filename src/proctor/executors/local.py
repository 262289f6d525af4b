"""The default executor: every model asked from this process's event loop, one caller per model
(so its concurrency, rate limits and circuit breaker cover all its items)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from proctor.executors.base import (
    AskSettings,
    Commit,
    Item,
    ModelCalls,
    ask_items,
    calls_of,
    make_caller,
)
from proctor.providers.base import Provider


class LocalExecutor:
    asks_here = True

    async def run(
        self,
        settings: AskSettings,
        todo: Mapping[str, Sequence[Item]],
        providers: Mapping[str, Provider],
        commit: Commit,
    ) -> dict[str, ModelCalls]:
        callers = {
            m: make_caller(providers[m], settings, seed=i) for i, m in enumerate(todo) if todo[m]
        }
        async with asyncio.TaskGroup() as group:
            for m, caller in callers.items():
                group.create_task(ask_items(settings, caller, m, todo[m], commit))
        return {m: calls_of(c) for m, c in callers.items()}
