"""Reads for a viewer of big results folders: counts, one page of answers, one item across
models, one model across runs. Each answers in SQL what a page shows, so that a page of a
100,000-answer run holds one page of answers in memory, not the run.

Grades are the stored ones (`scores`); an answer never graded has `score` None. Counting follows
`proctor.stats.metrics`: a failed call or an unscored answer is in no denominator.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from proctor.store import codec
from proctor.store.records import JOIN_SAMPLE
from proctor.store.tables import Transactions
from proctor.types import Record, Sample, Score

NOT_GRADED = "not_graded"
"""The outcome filter that selects answers with no stored grade."""

_READ = ", ".join(f"r.{c}" for c in codec.RECORD_READ_COLUMNS)
_SCORE = "sc.outcome, sc.rule, sc.explanation, sc.extracted, sc.normalized, sc.format_ok"
_SCORES = (
    " LEFT JOIN scores sc ON sc.run_id = r.run_id AND sc.model = r.model"
    " AND sc.sample_id = r.sample_id AND sc.epoch = r.epoch"
)
_JOIN = " FROM records r" + JOIN_SAMPLE + _SCORES
_TALLY = (
    "SELECT r.run_id, r.model, COUNT(*), SUM(r.status = 'call_failed'),"
    " COALESCE(SUM(sc.outcome = 'correct'), 0),"
    " COALESCE(SUM(sc.outcome NOT IN ('call_failed', 'unscored')), 0), COUNT(sc.outcome)"
    # Named indexes (schema migration 11), both covering: counting reads narrow index rows,
    # never a record's reply text; left to itself SQLite looks every grade up by the primary key.
    " FROM records r INDEXED BY records_tally LEFT JOIN scores sc INDEXED BY scores_tally"
    " ON sc.run_id = r.run_id AND sc.model = r.model"
    " AND sc.sample_id = r.sample_id AND sc.epoch = r.epoch"
)


@dataclass(frozen=True)
class Tally:
    """One model's answers in one run, counted from the stored grades."""

    run_id: str
    model: str
    n_answers: int
    n_failed: int
    correct: int
    n_scored: int
    """The denominator: graded answers that are neither failed calls nor unscored."""
    n_graded: int


@dataclass(frozen=True)
class Answer:
    record: Record
    sample: Sample
    score: Score | None
    """The stored grade, or None when the answer was never graded."""
    position: int
    """The sample's place in the run's paper."""


@dataclass(frozen=True)
class AnswerPage:
    total: int
    """Answers that match the filter, over every page."""
    answers: list[Answer]


def tallies(store: Transactions, run_ids: Sequence[str] | None = None) -> list[Tally]:
    """Per (run, model) counts, for `run_ids` or every run."""
    sql, args = _TALLY, tuple(run_ids or ())
    if run_ids is not None:
        if not run_ids:
            return []
        sql += f" WHERE r.run_id IN ({', '.join('?' for _ in run_ids)})"
    sql += " GROUP BY r.run_id, r.model"
    with store.transaction("count answers and grades", write=False) as db:
        rows = db.execute(sql, args).fetchall()
    return [Tally(str(r[0]), str(r[1]), *(int(v or 0) for v in tuple(r)[2:])) for r in rows]


def model_tallies(store: Transactions, model: str) -> list[Tally]:
    """`model`'s counts in every run that asked it."""
    with store.transaction(f"count answers of {model}", write=False) as db:
        rows = db.execute(_TALLY + " WHERE r.model = ? GROUP BY r.run_id", (model,)).fetchall()
    return [Tally(str(r[0]), str(r[1]), *(int(v or 0) for v in tuple(r)[2:])) for r in rows]


def answer_page(
    store: Transactions,
    run_id: str,
    *,
    model: str = "",
    outcome: str = "",
    text: str = "",
    offset: int = 0,
    limit: int = 50,
) -> AnswerPage:
    """One page of the run's answers in paper order (then model, then epoch), filtered by model,
    by stored outcome (or `NOT_GRADED`) and by `text` found in the reply or the sample."""
    where, args = ["r.run_id = ?"], [run_id]
    if model:
        where.append("r.model = ?")
        args.append(model)
    if outcome == NOT_GRADED:
        where.append("sc.outcome IS NULL")
    elif outcome:
        where.append("sc.outcome = ?")
        args.append(outcome)
    if text:
        where.append("(instr(r.text, ?) > 0 OR instr(s.data, ?) > 0)")
        args += [text, text]
    cond = " WHERE " + " AND ".join(where)
    # The count joins only what the filter reads (every record has its sample and at most one
    # score); the page sorts keys only, then reads the page's rows whole.
    counted = " FROM records r" + (JOIN_SAMPLE if text else "") + (_SCORES if outcome else "")
    keys = (
        "SELECT r.model, r.sample_id, r.epoch, s.position FROM records r" + JOIN_SAMPLE
        + (_SCORES if outcome else "") + cond
        + " ORDER BY s.position, r.model, r.epoch LIMIT ? OFFSET ?"
    )  # fmt: skip
    with store.transaction(f"read answers of run {run_id}", write=False) as db:
        (total,) = db.execute("SELECT COUNT(*)" + counted + cond, args).fetchone()
        rows = db.execute(
            f"WITH page AS ({keys}) SELECT {_READ}, {_SCORE}, s.data, s.position FROM page p"
            " JOIN records r ON r.run_id = ? AND r.model = p.model"
            " AND r.sample_id = p.sample_id AND r.epoch = p.epoch" + JOIN_SAMPLE + _SCORES
            + " ORDER BY p.position, p.model, p.epoch",
            (*args, max(limit, 0), max(offset, 0), run_id),
        ).fetchall()  # fmt: skip
    return AnswerPage(int(total), [_answer(row) for row in rows])


def item_answers(store: Transactions, run_id: str, sample_id: str) -> list[Answer]:
    """Every model's answers (all epochs) to one sample of the run, by model then epoch."""
    with store.transaction(f"read item {sample_id} of run {run_id}", write=False) as db:
        rows = db.execute(
            f"SELECT {_READ}, {_SCORE}, s.data, s.position" + _JOIN
            + " WHERE r.run_id = ? AND r.sample_id = ? ORDER BY r.model, r.epoch",
            (run_id, sample_id),
        ).fetchall()  # fmt: skip
    return [_answer(row) for row in rows]


def sample_at(store: Transactions, run_id: str, sample_id: str) -> tuple[int, Sample] | None:
    """The sample's position and value, or None if the run has no such sample."""
    with store.transaction(f"read item {sample_id} of run {run_id}", write=False) as db:
        row = db.execute(
            "SELECT position, data FROM samples WHERE run_id = ? AND sample_id = ?",
            (run_id, sample_id),
        ).fetchone()
    return None if row is None else (int(row[0]), codec.sample_from_json(row[1]))


def n_samples(store: Transactions, run_id: str) -> int:
    with store.transaction(f"count samples of run {run_id}", write=False) as db:
        (n,) = db.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?", (run_id,)).fetchone()
    return int(n)


def neighbours(store: Transactions, run_id: str, position: int) -> tuple[str | None, str | None]:
    """The ids of the samples before and after `position` in the paper."""
    with store.transaction(f"read samples of run {run_id}", write=False) as db:
        before = db.execute(
            "SELECT sample_id FROM samples WHERE run_id = ? AND position < ?"
            " ORDER BY position DESC LIMIT 1",
            (run_id, position),
        ).fetchone()
        after = db.execute(
            "SELECT sample_id FROM samples WHERE run_id = ? AND position > ?"
            " ORDER BY position LIMIT 1",
            (run_id, position),
        ).fetchone()
    return (None if before is None else str(before[0]), None if after is None else str(after[0]))


def _answer(row: sqlite3.Row) -> Answer:
    n = len(codec.RECORD_READ_COLUMNS)
    values = tuple(row)
    outcome = values[n]
    score = None
    if outcome is not None:
        extracted, normalized = values[n + 3], values[n + 4]
        score = Score(
            outcome=codec.outcome_name(outcome),
            rule=str(values[n + 1]),
            explanation=str(values[n + 2]),
            extracted=None if extracted is None else str(extracted),
            normalized=None if normalized is None else str(normalized),
            format_ok=bool(values[n + 5]),
        )
    return Answer(
        record=codec.record_from_row(values[:n]),
        sample=codec.sample_from_json(values[n + 6]),
        score=score,
        position=int(values[n + 7]),
    )
