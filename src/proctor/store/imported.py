"""Another harness's verdicts on an imported run (table `imported_verdicts`, migration 6): a
second grader kept beside proctor's own grades, never mixed with them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from proctor.store import codec
from proctor.store.tables import Transactions

ImportedOutcome = Literal["correct", "wrong", "unscored"]
IMPORTED_OUTCOMES: tuple[ImportedOutcome, ...] = get_args(ImportedOutcome)


@dataclass(frozen=True)
class ImportedVerdict:
    model: str
    sample_id: str
    epoch: int
    grader: str
    outcome: ImportedOutcome
    value: str
    credit: float | None
    extracted: str
    explanation: str


def add_verdicts(store: Transactions, run_id: str, verdicts: Sequence[ImportedVerdict]) -> None:
    for v in verdicts:
        codec.literal(v.outcome, IMPORTED_OUTCOMES, "imported outcome")
    with store.transaction(f"add imported verdicts to run {run_id}", write=True) as db:
        db.executemany(
            "INSERT INTO imported_verdicts (run_id, model, sample_id, epoch, grader, outcome,"
            " value, credit, extracted, explanation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (run_id, model, sample_id, epoch, grader) DO NOTHING",
            (
                (
                    run_id,
                    v.model,
                    v.sample_id,
                    v.epoch,
                    v.grader,
                    v.outcome,
                    v.value,
                    v.credit,
                    v.extracted,
                    v.explanation,
                )
                for v in verdicts
            ),
        )


def verdicts(store: Transactions, run_id: str, grader: str | None = None) -> list[ImportedVerdict]:
    """The run's imported verdicts (of one grader, when named), in the order stored."""
    where = "run_id = ?" + ("" if grader is None else " AND grader = ?")
    args: tuple[str, ...] = (run_id,) if grader is None else (run_id, grader)
    with store.transaction(f"read imported verdicts of run {run_id}", write=False) as db:
        rows = db.execute(
            "SELECT model, sample_id, epoch, grader, outcome, value, credit, extracted,"
            f" explanation FROM imported_verdicts WHERE {where} ORDER BY rowid",
            args,
        ).fetchall()
    return [
        ImportedVerdict(
            model=str(r[0]),
            sample_id=str(r[1]),
            epoch=int(r[2]),
            grader=str(r[3]),
            outcome=codec.literal(r[4], IMPORTED_OUTCOMES, "imported outcome"),
            value=str(r[5]),
            credit=None if r[6] is None else float(r[6]),
            extracted=str(r[7]),
            explanation=str(r[8]),
        )
        for r in rows
    ]
