"""What a Ray worker does with one shard: ask its items and stream the records back in batches,
as they are answered, so the driver commits them while the shard runs (a node lost mid-shard
loses only the answers not yet sent, and a re-run asks only those).

Never opens the store; keys are read from the worker's own environment, overlaid with the
variables the driver forwarded (`--ray-forward-env`), which arrive inside the payload."""

from __future__ import annotations

import asyncio
import os
import queue
import threading
import time
from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ray import cloudpickle

from proctor.executors.base import (
    AskSettings,
    ModelCalls,
    WorkUnit,
    ask_items,
    calls_of,
    make_caller,
)
from proctor.providers.registry import make_provider
from proctor.types import Record

BATCH = 100
"""Records sent back at most per message."""
FLUSH_S = 0.5
"""Records waiting longer than this are sent back without waiting for a full batch."""

ShardPayload = tuple[AskSettings, WorkUnit, Mapping[str, str]]
"""What the driver pickles for a shard: the settings, the unit, the forwarded variables."""


def ask_shard(payload: bytes) -> Iterator[tuple[str, Any]]:
    """Yields ("records", [Record, …]) as answers come, then ("calls", ModelCalls)."""
    settings, unit, forwarded = cloudpickle.loads(payload)
    out: queue.Queue[tuple[str, Any]] = queue.Queue()
    environ = ChainMap(dict(forwarded), os.environ)

    def work() -> None:
        try:
            out.put(("done", asyncio.run(_ask(settings, unit, environ, out.put))))
        except BaseException as e:  # handed to the generator, which raises it to the driver
            out.put(("error", e))

    threading.Thread(target=work, name="proctor-shard", daemon=True).start()
    pending: list[Record] = []
    sent = time.monotonic()
    while True:
        try:
            kind, value = out.get(timeout=FLUSH_S)
        except queue.Empty:
            kind, value = "", None
        if kind == "record":
            pending.append(value)
        now = time.monotonic()
        flush = kind in ("done", "error") or len(pending) >= BATCH or now - sent >= FLUSH_S
        if pending and flush:
            yield ("records", pending)
            pending, sent = [], now
        if kind == "done":
            yield ("calls", value)
            return
        if kind == "error":
            raise value


async def _ask(
    settings: AskSettings,
    unit: WorkUnit,
    environ: Mapping[str, str],
    put: Callable[[tuple[str, Any]], None],
) -> ModelCalls:
    provider = make_provider(unit.model, settings.keys.get(unit.model), environ=environ)

    async def keep(batch: Sequence[tuple[Record, Any]]) -> None:
        for record, _ in batch:
            put(("record", record))

    try:
        caller = make_caller(provider, settings, unit.seed)
        await ask_items(settings, caller, unit.model, unit.items, keep)
        return calls_of(caller)
    finally:
        await provider.aclose()
