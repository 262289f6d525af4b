"""`proctor run --executor ray`: a run's (model × shard) work units as Ray tasks.

Each task builds its model's provider on the worker, asks its shard (with the run's concurrency,
retries and rate limits, per task) and returns the records; the driver commits them into its
run store as each task finishes. Workers never open the SQLite file (a cluster has no shared
disk), so resume, re-grading and reports work exactly as after a local run, and a run may be
started with one executor and resumed with the other.

On a real cluster:

    pip install 'proctor-eval[ray]'            # on the driver and on every node, same versions
    ray start --head                           # head node; others: ray start --address=HEAD:6379
    export RAY_ADDRESS=ray://HEAD:10001        # or pass --ray-address; "auto" on a cluster node
    proctor run arithmetic -m openai-compat/NAME@http://SERVER:8000/v1 -m ... \
        --executor ray --shard-size 250 --concurrency 32

Where the cluster is: `address` (`--ray-address`), else `RAY_ADDRESS`, else a Ray already
initialised in this process, else a new local one. The workers need proctor installed (the same
version as the driver; or ship it with a Ray runtime_env) and must reach the model servers
themselves; API keys are read from the workers' environment (set them in the runtime_env's
env_vars or on the nodes). `--concurrency` applies per task: shards of one model that run at
once multiply the load on its server. A killed driver loses at most the shards in flight."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import ray

from proctor.executors.base import (
    AskSettings,
    Commit,
    Item,
    ModelCalls,
    WorkUnit,
    ask_items,
    calls_of,
    make_caller,
    merge_calls,
)
from proctor.providers.base import Provider
from proctor.providers.registry import make_provider
from proctor.types import Record

DEFAULT_SHARD_SIZE = 250


def shards(todo: Mapping[str, Sequence[Item]], size: int) -> list[WorkUnit]:
    """Every model's items cut into shards of at most `size`, interleaved across models so the
    first tasks to run are spread over all of them."""
    if size < 1:
        raise ValueError(f"shard size must be at least 1, got {size}")
    per_model = [
        [WorkUnit(m, tuple(items[i : i + size]), seed) for i in range(0, len(items), size)]
        for seed, (m, items) in enumerate(todo.items())
    ]
    longest = max((len(u) for u in per_model), default=0)
    return [u[k] for k in range(longest) for u in per_model if k < len(u)]


def ask_unit(settings: AskSettings, unit: WorkUnit) -> tuple[list[Record], ModelCalls]:
    """Runs on a Ray worker: ask one shard, return its records (never stored here)."""

    async def go() -> tuple[list[Record], ModelCalls]:
        provider = make_provider(unit.model, settings.keys.get(unit.model))
        records: list[Record] = []

        async def keep(batch: Sequence[tuple[Record, Any]]) -> None:
            records.extend(r for r, _ in batch)

        try:
            caller = make_caller(provider, settings, unit.seed)
            await ask_items(settings, caller, unit.model, unit.items, keep)
            return records, calls_of(caller)
        finally:
            await provider.aclose()

    return asyncio.run(go())


class RayExecutor:
    def __init__(
        self,
        address: str | None = None,
        *,
        shard_size: int = DEFAULT_SHARD_SIZE,
        cpus_per_unit: float = 1.0,
        init_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if shard_size < 1:
            raise ValueError(f"shard size must be at least 1, got {shard_size}")
        self.address = address
        self.shard_size = shard_size
        self.cpus_per_unit = cpus_per_unit
        self._init_kwargs = dict(init_kwargs or {})

    def _connect(self) -> None:
        if ray.is_initialized():
            return
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        kwargs.update(self._init_kwargs)
        # address None: RAY_ADDRESS if set, else a new local cluster (ray.init's own rule)
        ray.init(address=self.address, **kwargs)

    async def run(
        self,
        settings: AskSettings,
        todo: Mapping[str, Sequence[Item]],
        providers: Mapping[str, Provider],
        commit: Commit,
    ) -> dict[str, ModelCalls]:
        del providers  # each worker builds its own from the model string
        units = shards(todo, self.shard_size)
        if not units:
            return {}
        self._connect()
        remote = ray.remote(num_cpus=self.cpus_per_unit, max_retries=0)(ask_unit)
        settings_ref = ray.put(settings)
        refs = [remote.remote(settings_ref, u) for u in units]
        parts: dict[str, list[ModelCalls]] = {}

        async def one(ref: Any, unit: WorkUnit) -> tuple[WorkUnit, list[Record], ModelCalls]:
            records, calls = await ref
            return unit, records, calls

        tasks = [asyncio.ensure_future(one(r, u)) for r, u in zip(refs, units, strict=True)]
        try:
            for next_done in asyncio.as_completed(tasks):
                unit, records, calls = await next_done
                sample_of = {(s.id, e): s for s, e in unit.items}
                await commit([(r, sample_of[(r.sample_id, r.epoch)]) for r in records])
                parts.setdefault(unit.model, []).append(calls)
        finally:
            await _stop(refs, tasks)
        return {m: merge_calls(parts[m]) for m in todo if m in parts}


async def _stop(refs: Sequence[Any], tasks: Sequence[asyncio.Future[Any]]) -> None:
    """After a deadline or an error: cancel the tasks still running and wait for them, so that
    once the run has stopped no worker is still asking (what they had is not stored, and a
    resume asks it again)."""
    running = [(ref, t) for ref, t in zip(refs, tasks, strict=True) if not t.done()]
    for ref, _ in running:
        with contextlib.suppress(Exception):
            ray.cancel(ref)
    if running:
        await asyncio.wait([t for _, t in running], timeout=60)
    for t in tasks:
        if t.done() and not t.cancelled():
            t.exception()  # retrieved: a cancelled shard's error is expected, not news
        else:
            t.cancel()
