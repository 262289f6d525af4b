"""The run's store writer: answers and their grades committed in groups, off the event loop,
each answer on disk before it is acknowledged (see `GroupCommit`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from proctor.errors import StoreError
from proctor.store import RunStore, response_cache
from proctor.store.response_cache import CacheEntry
from proctor.store.run_store import ScoreRow
from proctor.types import Record, Sample

CacheKeys = dict[tuple[str, str, int], tuple[str, str]]
"""(model, sample id, epoch) → (response cache key, key owner) of each request to be asked."""


class GroupCommit:
    """The run's store writer: one writer commits, in one transaction, every record (and every
    grade) queued since its last commit, off the event loop; each `commit` returns once its
    records are on disk.

    So a run pays one SQLite commit per batch, not per answer, while an answer is still never
    acknowledged (nor graded, nor its worker given a new item) before it is stored. The writer
    only commits: grading is `RunGrader`'s, and its grades come back here to be stored."""

    def __init__(self, store: RunStore, run_id: str, keys: CacheKeys | None = None) -> None:
        self._store = store
        self._run_id = run_id
        self._keys = keys or {}
        self._queue: list[tuple[_Batch, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    async def commit(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        if batch:
            await self._queued(_Batch(records=[r for r, _ in batch]))

    async def commit_scores(self, rows: Sequence[ScoreRow]) -> None:
        if rows:
            await self._queued(_Batch(scores=list(rows)))

    async def _queued(self, rows: _Batch) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((rows, done))
        self._wake.set()
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_loop())
        await done

    async def close(self) -> None:
        """Commit what is queued and stop the writer; waits for a write under way (the store's
        connection must not be used from two threads at once)."""
        self._closing = True
        self._wake.set()
        if self._writer is not None:
            await asyncio.wait([self._writer])

    async def _write_loop(self) -> None:
        while True:
            if not self._queue:
                if self._closing:
                    return
                await self._wake.wait()
                self._wake.clear()
                continue
            queued, self._queue = self._queue, []
            try:
                await asyncio.to_thread(self._write, [rows for rows, _ in queued])
                failure: Exception | None = None
            except Exception as e:
                failure = e
            for _, done in queued:
                if not done.done():
                    if failure is None:
                        done.set_result(None)
                    else:
                        done.set_exception(failure)

    def _write(self, queued: Sequence[_Batch]) -> None:
        # Committed before it is graded: the raw answer is never lost to a grading bug.
        records = [r for batch in queued for r in batch.records]
        self._store.add_records(records)
        if self._keys and records:
            # After the records' own commit: a kill in between costs a cache entry, never an
            # answer; so does a cache that cannot be written (a full disk says so at the next
            # records' commit), which is then given up for the rest of the run.
            try:
                response_cache.remember(
                    self._store,
                    (CacheEntry(*self._keys[k], r) for r in records
                     if (k := (r.model, r.sample_id, r.epoch)) in self._keys),
                )  # fmt: skip
            except StoreError:
                self._keys = {}
        self._store.add_scores(self._run_id, [s for batch in queued for s in batch.scores])


@dataclass(frozen=True)
class _Batch:
    """What one `commit` hands the writer: answers to store, or their grades."""

    records: list[Record] = field(default_factory=list)
    scores: list[ScoreRow] = field(default_factory=list)
