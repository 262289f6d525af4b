"""The default executor: every model asked from this process's event loop, one caller per model
(so its concurrency, rate limits and circuit breaker cover all its items)."""

from __future__ import annotations

import asyncio

from proctor.executors.base import AskJob, ModelCalls, ask_items, calls_of, make_caller


class LocalExecutor:
    asks_here = True

    async def run(self, job: AskJob) -> dict[str, ModelCalls]:
        todo = job.todo
        callers = {
            m: make_caller(job.providers[m], job.settings, seed=i)
            for i, m in enumerate(todo)
            if todo[m]
        }
        async with asyncio.TaskGroup() as group:
            for m, caller in callers.items():
                group.create_task(ask_items(job.settings, caller, m, todo[m], job.commit))
        return {m: calls_of(c) for m, c in callers.items()}
