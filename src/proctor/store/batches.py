"""The provider batches of a run (table `provider_batches`, migration 7): what
`proctor.calling.batching` needs to remember so that a restart never submits a request twice."""

from __future__ import annotations

import json
from collections.abc import Sequence

from proctor.providers.batch import LedgerBatch
from proctor.store.tables import Transactions
from proctor.store.tables import now as _now


class StoreBatchLedger:
    """`BatchLedger` over a run store; each call is one short transaction, committed at once."""

    def __init__(self, store: Transactions, run_id: str) -> None:
        self._store = store
        self._run_id = run_id

    def open_batches(self, model: str) -> list[LedgerBatch]:
        with self._store.transaction("read the run's batches", write=False) as db:
            rows = db.execute(
                "SELECT token, batch_id, requests FROM provider_batches WHERE run_id = ?"
                " AND model = ? AND state IN ('submitting', 'submitted') ORDER BY created_at",
                (self._run_id, model),
            ).fetchall()
        return [
            LedgerBatch(
                token=str(r[0]),
                batch_id=str(r[1]),
                requests=tuple((str(c), str(s), int(e)) for c, s, e in json.loads(r[2])),
            )
            for r in rows
        ]

    def intend(self, model: str, token: str, requests: Sequence[tuple[str, str, int]]) -> None:
        now = _now()
        with self._store.transaction("record a batch before it is sent", write=True) as db:
            db.execute(
                "INSERT INTO provider_batches (run_id, model, token, requests, state, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, 'submitting', ?, ?)",
                (self._run_id, model, token, json.dumps([list(r) for r in requests]), now, now),
            )

    def _set(self, model: str, token: str, what: str, sql: str, args: tuple[object, ...]) -> None:
        with self._store.transaction(what, write=True) as db:
            db.execute(
                f"UPDATE provider_batches SET {sql}, updated_at = ?"
                " WHERE run_id = ? AND model = ? AND token = ?",
                (*args, _now(), self._run_id, model, token),
            )

    def submitted(self, model: str, token: str, batch_id: str) -> None:
        self._set(model, token, "record a batch id", "batch_id = ?, state = 'submitted'",
                  (batch_id,))

    def collected(self, model: str, token: str, detail: str) -> None:
        self._set(model, token, "record a batch collected", "state = 'collected', detail = ?",
                  (detail,))

    def abandoned(self, model: str, token: str, detail: str) -> None:
        self._set(model, token, "record a batch abandoned", "state = 'abandoned', detail = ?",
                  (detail,))
