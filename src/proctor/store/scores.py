"""A run's grades (table `scores`, one per record) and the grader version they were made by
(table `gradings`, one per run), migration 1. A run whose `gradings` row is missing reads as
not graded."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from proctor.store import codec
from proctor.store import samples as samples_table
from proctor.store.records import JOIN_SAMPLE, READ_COLUMNS
from proctor.store.tables import Transactions, now, reading_run, require_run, tuples
from proctor.types import GradedItem, Record, Sample, Score

ScoreRow = tuple[str, str, int, Score]
"""(model, sample id, epoch, score): one grade as `save_scores` takes it."""
StoredScore = tuple[object, ...]
"""A stored grade's columns `codec.SCORE_READ_COLUMNS` as read, to compare with a new grade's."""

_SCORE_AT = len(codec.RECORD_READ_COLUMNS)
_GRADED_ITEMS = (
    f"SELECT {READ_COLUMNS}, "
    + ", ".join(f"c.{column}" for column in codec.SCORE_READ_COLUMNS)
    + " FROM records r"
    + JOIN_SAMPLE
    + " LEFT JOIN scores c ON c.run_id = r.run_id AND c.model = r.model"
    " AND c.sample_id = r.sample_id AND c.epoch = r.epoch"
    " WHERE r.run_id = ? ORDER BY r.model, s.position, r.epoch"
)
"""Each record of a run with its grade's columns (NULL when never graded), in `records` order."""
_INSERT = (
    "INSERT INTO scores (run_id, model, sample_id, epoch, outcome, rule,"
    " explanation, extracted, normalized, format_ok)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPSERT = _INSERT.replace("INSERT INTO", "INSERT OR REPLACE INTO", 1)
_MARK_GRADED = (
    "INSERT INTO gradings (run_id, grader_version, graded_at) VALUES (?, ?, ?)"
    " ON CONFLICT (run_id) DO UPDATE SET"
    " grader_version = excluded.grader_version, graded_at = excluded.graded_at"
)


def _score_rows(run_id: str, scores: Iterable[ScoreRow]) -> Iterator[tuple[object, ...]]:
    for model, sample_id, epoch, s in scores:
        yield (
            run_id,
            model,
            sample_id,
            epoch,
            codec.outcome_name(s.outcome),
            s.rule,
            s.explanation,
            s.extracted,
            s.normalized,
            int(s.format_ok),
        )


def _changed(
    run_id: str, page: Sequence[tuple[ScoreRow, StoredScore | None]]
) -> list[tuple[object, ...]]:
    """The rows to write: the new grades that differ from the stored ones (or have none)."""
    return list(
        _score_rows(run_id, [new for new, stored in page if not same_grade(new[3], stored)])
    )


def same_grade(score: Score, stored: StoredScore | None) -> bool:
    """Whether `stored` (a grade as `answer_page` reads it) is `score`, column for
    column: a re-grade need not write it again."""
    return stored is not None and (
        score.outcome, score.rule, score.explanation, score.extracted, score.normalized,
        int(score.format_ok),
    ) == stored  # fmt: skip


def save(store: Transactions, run_id: str, scores: Sequence[ScoreRow], grader_version: str) -> None:
    """Replace every score of the run with `scores` ((model, sample id, epoch, score))."""
    with store.transaction(f"save scores of run {run_id}", write=True) as db:
        require_run(db, store.db_path, run_id)
        db.execute("DELETE FROM scores WHERE run_id = ?", (run_id,))
        db.executemany(_INSERT, _score_rows(run_id, scores))
        db.execute(_MARK_GRADED, (run_id, grader_version, now()))


def save_regraded_pages(
    store: Transactions,
    run_id: str,
    pages: Iterable[Sequence[tuple[ScoreRow, StoredScore | None]]],
    grader_version: str,
) -> int:
    """Save a re-grade of every record of the run, each new grade given with the one stored
    for it (`answer_page`): only the grades that differ are written, one transaction per page,
    so that a long re-grade never holds the write lock for long nor all its scores in
    memory; how many were written. The run ends with the same scores as a `save` of every new
    grade.

    If `pages` fails on its first page nothing changes; if it fails later, the pages saved
    so far stay and the run has no grader version (it reads as not graded). Either way the
    error propagates."""
    what = f"save scores of run {run_id}"
    remaining = iter(pages)
    first = next(remaining, None)  # made before anything changes: a first error keeps all
    written = 0
    with store.transaction(what, write=True) as db:
        require_run(db, store.db_path, run_id)
        db.execute("DELETE FROM gradings WHERE run_id = ?", (run_id,))
        if first is not None:
            changed = _changed(run_id, first)
            db.executemany(_UPSERT, changed)
            written += len(changed)
    for page in remaining:
        changed = _changed(run_id, page)
        if changed:
            with store.transaction(what, write=True) as db:
                db.executemany(_UPSERT, changed)
            written += len(changed)
    with store.transaction(what, write=True) as db:
        require_run(db, store.db_path, run_id)
        db.execute(_MARK_GRADED, (run_id, grader_version, now()))
    return written


def add(store: Transactions, run_id: str, scores: Sequence[ScoreRow]) -> None:
    """Store the grades of records that have just been graded, in one transaction; each
    replaces the record's earlier grade, if any. The run's grader version is left as it is
    (`mark_graded` says which rules the grades were made by)."""
    if not scores:
        return
    with store.transaction(f"save scores of run {run_id}", write=True) as db:
        db.executemany(_UPSERT, _score_rows(run_id, scores))


def mark_graded(store: Transactions, run_id: str, grader_version: str) -> None:
    """Record that the run's stored grades are made by `grader_version`."""
    with store.transaction(f"save scores of run {run_id}", write=True) as db:
        require_run(db, store.db_path, run_id)
        db.execute(_MARK_GRADED, (run_id, grader_version, now()))


def ungraded(store: Transactions, run_id: str) -> list[tuple[Record, Sample]]:
    """The stored records that have no grade yet, with their samples, in `records` order."""
    with reading_run(store, run_id, "read records") as db:
        rows = tuples(
            db,
            f"SELECT {READ_COLUMNS}, s.data FROM records r{JOIN_SAMPLE}"
            " LEFT JOIN scores g ON g.run_id = r.run_id AND g.model = r.model"
            " AND g.sample_id = r.sample_id AND g.epoch = r.epoch"
            " WHERE r.run_id = ? AND g.run_id IS NULL"
            " ORDER BY r.model, s.position, r.epoch",
            (run_id,),
        )
    samples: dict[str, Sample] = {}
    out: list[tuple[Record, Sample]] = []
    for row in rows:
        record = codec.record_from_row(row[:-1])
        sample = samples.get(record.sample_id)
        if sample is None:
            sample = samples[record.sample_id] = codec.sample_from_json(row[-1])
        out.append((record, sample))
    return out


def graded_items(store: Transactions, run_id: str, ungraded: Score) -> list[GradedItem]:
    """Every stored record with its sample and its stored grade (`ungraded` for a record
    never graded), in `records` order: what every report, gate and comparison reads."""
    samples = {s.id: s for s in samples_table.read(store, run_id)}
    # Identical grades (same outcome, rule, explanation, extraction) share one frozen Score:
    # building one costs more than looking its values up.
    grades: dict[tuple[Any, ...], Score] = {}
    items: list[GradedItem] = []
    with reading_run(store, run_id, "read graded records") as db:
        # One read of records and their grades together, row by row: each row's tuple
        # (and the grade values a shared Score makes redundant) is freed as it is read,
        # not held with all the others until the last.
        cursor = db.cursor()
        cursor.row_factory = None
        for row in cursor.execute(_GRADED_ITEMS, (run_id,)):
            values = row[_SCORE_AT:]
            score = grades.get(values)
            if score is None:
                score = grades[values] = (
                    ungraded if values[0] is None else codec.score_from_values(values)
                )
            items.append(GradedItem(samples[row[2]], codec.record_from_row(row), score))
    return items


def read(store: Transactions, run_id: str) -> dict[tuple[str, str, int], Score]:
    """The run's scores keyed by (model, sample id, epoch)."""
    with reading_run(store, run_id, "read scores") as db:
        rows = db.execute("SELECT * FROM scores WHERE run_id = ?", (run_id,)).fetchall()
    return {
        (str(r["model"]), str(r["sample_id"]), int(r["epoch"])): codec.score_from_row(r)
        for r in rows
    }


def grader_version(store: Transactions, run_id: str) -> str | None:
    """The grader version of the last `save` (or `mark_graded`), or None if never graded."""
    with reading_run(store, run_id, "read scores") as db:
        row = db.execute(
            "SELECT grader_version FROM gradings WHERE run_id = ?", (run_id,)
        ).fetchone()
    return None if row is None else str(row["grader_version"])
