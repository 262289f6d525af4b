"""People's verdicts on a run's replies (table `human_verdicts`, migration 9).

Append-only: a verdict is never updated nor deleted; a reviewer's newer verdict on a reply
supersedes their older ones when grades are read (`latest`), and the older ones stay for drift.
Each verdict carries the sha256 of the reply the reviewer was shown (`reply_hash`); one is
stored only when that hash is the stored reply's, checked inside the writing transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from proctor.errors import StoreError
from proctor.store import codec
from proctor.store.tables import Transactions, reading_run, require_run, tuples

HumanVerdictValue = Literal["correct", "wrong", "skip"]
HUMAN_VERDICTS: tuple[HumanVerdictValue, ...] = get_args(HumanVerdictValue)


@dataclass(frozen=True)
class HumanVerdict:
    """One verdict a person gave on one stored reply."""

    run_id: str
    model: str
    sample_id: str
    epoch: int
    reviewer: str
    verdict: HumanVerdictValue
    note: str
    reply_hash: str
    blind: bool
    """Given in a re-grade that hid the reviewer's earlier verdict (drift)."""
    reviewed_at: str
    """ISO 8601, UTC."""

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.model, self.sample_id, self.epoch)


def reply_hash(text: str) -> str:
    """The content hash of a reply as the store holds it: sha256 hex of its UTF-8."""
    return hashlib.sha256(codec.storable(text).encode("utf-8")).hexdigest()


_COLUMNS = (
    "run_id, model, sample_id, epoch, reviewer, verdict, note, reply_hash, blind, reviewed_at"
)


def _row(v: HumanVerdict) -> tuple[object, ...]:
    return (
        v.run_id,
        v.model,
        v.sample_id,
        v.epoch,
        codec.storable(v.reviewer),
        v.verdict,
        codec.storable(v.note),
        v.reply_hash,
        int(v.blind),
        v.reviewed_at,
    )


def add(store: Transactions, run_id: str, verdicts: Sequence[HumanVerdict]) -> int:
    """Append verdicts in one transaction; how many were new. A verdict equal in every field to
    a stored one is already there (an import read twice adds nothing). StoreError, and nothing
    stored, when any verdict's reply is not stored or its hash is not the stored reply's."""
    for v in verdicts:
        codec.literal(v.verdict, HUMAN_VERDICTS, "human verdict")
        if v.run_id != run_id:
            raise StoreError(f"a verdict on run {v.run_id} given to run {run_id}")
    with store.transaction(f"add human verdicts to run {run_id}", write=True) as db:
        require_run(db, store.db_path, run_id)
        hashes = {
            (str(m), str(s), int(e)): reply_hash(str(t))
            for m, s, e, t in tuples(
                db,
                "SELECT model, sample_id, epoch, text FROM records"
                " WHERE run_id = ? AND status = 'ok'",
                (run_id,),
            )
        }
        stored = {
            tuple(r)
            for r in tuples(
                db, f"SELECT {_COLUMNS} FROM human_verdicts WHERE run_id = ?", (run_id,)
            )
        }
        added = 0
        for i, v in enumerate(verdicts):
            have = hashes.get(v.key)
            if have is None:
                raise StoreError(
                    f"verdict {i + 1}: run {run_id} has no answered reply of {v.model} to "
                    f"{v.sample_id} (epoch {v.epoch})"
                )
            if have != v.reply_hash:
                raise StoreError(
                    f"verdict {i + 1}: the reply of {v.model} to {v.sample_id} (epoch "
                    f"{v.epoch}) is not the one reviewed (content hash {v.reply_hash[:12]}… "
                    f"≠ stored {have[:12]}…)"
                )
            row = _row(v)
            if row in stored:
                continue
            db.execute(
                f"INSERT INTO human_verdicts ({_COLUMNS}) VALUES ({', '.join('?' * 10)})", row
            )
            stored.add(row)
            added += 1
    return added


def read(store: Transactions, run_id: str) -> list[HumanVerdict]:
    """Every verdict given on the run, in the order they were stored."""
    with reading_run(store, run_id, "read human verdicts") as db:
        rows = tuples(
            db, f"SELECT {_COLUMNS} FROM human_verdicts WHERE run_id = ? ORDER BY seq", (run_id,)
        )
    return [
        HumanVerdict(
            run_id=str(r[0]),
            model=str(r[1]),
            sample_id=str(r[2]),
            epoch=int(r[3]),
            reviewer=str(r[4]),
            verdict=codec.literal(r[5], HUMAN_VERDICTS, "human verdict"),
            note=str(r[6]),
            reply_hash=str(r[7]),
            blind=bool(r[8]),
            reviewed_at=str(r[9]),
        )
        for r in rows
    ]


def latest(verdicts: Sequence[HumanVerdict]) -> dict[tuple[str, str, int, str], HumanVerdict]:
    """(model, sample id, epoch, reviewer) → that reviewer's newest verdict on the reply."""
    out: dict[tuple[str, str, int, str], HumanVerdict] = {}
    for v in verdicts:  # in stored order: a later one supersedes
        out[(*v.key, v.reviewer)] = v
    return out
