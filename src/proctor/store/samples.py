"""A run's samples (table `samples`, migration 1): the paper it asks, in order, each sample
whole (metadata included) as JSON."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from proctor.errors import StoreError
from proctor.store import codec
from proctor.store.tables import Transactions, reading_run, tuples
from proctor.types import Sample


def insert(db: sqlite3.Connection, run_id: str, samples: Sequence[Sample]) -> None:
    """Write a new run's samples in the caller's transaction (`runs.create`)."""
    db.executemany(
        "INSERT INTO samples (run_id, position, sample_id, data) VALUES (?, ?, ?, ?)",
        ((run_id, i, s.id, codec.sample_to_json(s)) for i, s in enumerate(samples)),
    )


def refuse_repeats(run_id: str, samples: Sequence[Sample]) -> None:
    """StoreError when two samples of a run have one id: the id is how records find theirs."""
    seen: set[str] = set()
    for sample in samples:
        if sample.id in seen:
            raise StoreError(f"run {run_id}: sample id '{sample.id}' appears twice")
        seen.add(sample.id)


def read(store: Transactions, run_id: str) -> list[Sample]:
    """The run's samples, in the order they were given to `create_run`."""
    with reading_run(store, run_id, "read samples") as db:
        rows = tuples(db, "SELECT data FROM samples WHERE run_id = ? ORDER BY position", (run_id,))
    return [codec.sample_from_json(data) for (data,) in rows]
