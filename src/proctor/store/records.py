"""Every raw answer of a run (table `records`, migrations 1, 3, 5 and 7): one row per model,
sample and epoch, stored as it came, before any grading. The first "ok" answer wins."""

from __future__ import annotations

import json
from collections.abc import Sequence

from proctor.store import codec
from proctor.store.tables import Transactions, now, reading_run, require_run, tuples, upsert
from proctor.types import Record

READ_COLUMNS = ", ".join(f"r.{c}" for c in codec.RECORD_READ_COLUMNS)
JOIN_SAMPLE = " JOIN samples s ON s.run_id = r.run_id AND s.sample_id = r.sample_id"
"""Each record `r` with its sample `s` (for the sample's position or data)."""
"""A record's columns as `codec.record_from_row` reads them, from `records r`."""

# First "ok" wins: a stored failure may be replaced (by a success, or by a later failure), a
# stored success never is.
_UPSERT = upsert(
    "records",
    codec.RECORD_COLUMNS,
    ("run_id", "model", "sample_id", "epoch"),
    "records.status = 'call_failed'",
)


def add(store: Transactions, records: Sequence[Record]) -> None:
    """Store records in one transaction, committed before this returns.

    Keyed on (run, model, sample, epoch). A stored "ok" record is never overwritten (the
    first answer wins); a stored "call_failed" record is replaced by whatever comes next.
    """
    if not records:
        return
    for r in records:
        codec.literal(r.status, codec.RECORD_STATUSES, "record status")
        codec.literal(r.finish_reason, codec.FINISH_REASONS, "finish reason")
    stored_at = now()
    run_ids = sorted({r.run_id for r in records})
    with store.transaction(f"add records to run {', '.join(run_ids)}", write=True) as db:
        db.executemany(_UPSERT, (codec.record_to_row(r, stored_at) for r in records))


def missing(store: Transactions, run_id: str, model: str, epochs: int) -> list[tuple[str, int]]:
    """(sample id, epoch) pairs with no stored record for `model`, in sample order.

    A "call_failed" record is a stored outcome (its retries were spent), so it is not
    missing; see `failed` for those.
    """
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}")
    with reading_run(store, run_id, "read records") as db:
        ids = db.execute(
            "SELECT sample_id FROM samples WHERE run_id = ? ORDER BY position", (run_id,)
        ).fetchall()
        done = db.execute(
            "SELECT sample_id, epoch FROM records WHERE run_id = ? AND model = ?",
            (run_id, model),
        ).fetchall()
    have = {(str(r["sample_id"]), int(r["epoch"])) for r in done}
    return [
        (str(r["sample_id"]), epoch)
        for r in ids
        for epoch in range(epochs)
        if (str(r["sample_id"]), epoch) not in have
    ]


def failed(store: Transactions, run_id: str, model: str) -> list[str]:
    """Ids of samples (in sample order) with a "call_failed" record for `model`."""
    with reading_run(store, run_id, "read records") as db:
        rows = db.execute(
            f"SELECT r.sample_id FROM records r{JOIN_SAMPLE}"
            " WHERE r.run_id = ? AND r.model = ? AND r.status = 'call_failed'"
            " GROUP BY s.position, r.sample_id ORDER BY s.position",
            (run_id, model),
        ).fetchall()
    return [str(r["sample_id"]) for r in rows]


def read(store: Transactions, run_id: str, model: str | None) -> list[Record]:
    """Stored records, ordered by model, then sample position, then epoch."""
    where = "r.run_id = ?" + ("" if model is None else " AND r.model = ?")
    args: tuple[str, ...] = (run_id,) if model is None else (run_id, model)
    with reading_run(store, run_id, "read records") as db:
        rows = tuples(
            db,
            f"SELECT {READ_COLUMNS} FROM records r{JOIN_SAMPLE}"
            f" WHERE {where} ORDER BY r.model, s.position, r.epoch",
            args,
        )
    return [codec.record_from_row(r) for r in rows]


def count(store: Transactions, run_id: str) -> dict[str, int]:
    """Stored records per model; every model of the run appears, with 0 if it has none."""
    with store.transaction(f"count records of run {run_id}", write=False) as db:
        run = require_run(db, store.db_path, run_id)
        rows = db.execute(
            "SELECT model, COUNT(*) AS n FROM records WHERE run_id = ? GROUP BY model",
            (run_id,),
        ).fetchall()
    counts = {str(m): 0 for m in json.loads(run["models"])}
    counts.update({str(r["model"]): int(r["n"]) for r in rows})
    return counts


def max_epoch(store: Transactions, run_id: str) -> int:
    """The highest epoch of the run's stored records; 0 when it has none."""
    with store.transaction(f"read epochs of run {run_id}", write=False) as db:
        (top,) = db.execute(
            "SELECT COALESCE(MAX(epoch), 0) FROM records WHERE run_id = ?", (run_id,)
        ).fetchone()
    return int(top)
