"""The leaderboard's cells of each run (tables `board_runs` and `board_cells`, migration 12).

A run's cells are one row per model: what the leaderboard shows of it (counts, accuracy and
interval, tokens) and its per-item right/wrong, one byte per item of the run's item list
(`board_runs.items`: "sample#epoch" of every sample in position order and every epoch stored):
`RIGHT`, `WRONG`, or `NO_MARK` (not scored, or not answered). They are made in the wiring
(`proctor.runs.board_cells`): from the report's statistics when a report is written (`made`),
else from the run's answers as `_marks` reads them (without their replies), stored by
`computed` in the same transaction. The schema's triggers drop a run's
cells whenever its records, grades, grader version, samples or plan change: cells that are
there are the run's as stored now.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields

from proctor.stats.item_marks import NO_MARK, RIGHT, WRONG
from proctor.stats.metrics import Cell
from proctor.store.tables import Transactions, now, require_run

__all__ = ["NO_MARK", "RIGHT", "WRONG", "AnswerMark", "ModelCells", "RunCells"]


@dataclass(frozen=True)
class ModelCells:
    """One model's row of a run (`board_cells`)."""

    model: str
    n_items: int
    """Its stored answers (failed calls included)."""
    overall: Cell
    """Its accuracy on the scored answers, with the interval, as its report has it."""
    not_asked: int
    """Calls never made (a breaker opened): stored as failed calls, counted apart."""
    failed: int
    """Calls that failed after their last attempt (not counting `not_asked`)."""
    prompt_tokens: int
    """Tokens spent asking live (reused answers and batches not counted)."""
    completion_tokens: int
    batch_prompt_tokens: int
    batch_completion_tokens: int
    marks: bytes
    """Per item of the run's item list: RIGHT, WRONG or NO_MARK."""


@dataclass(frozen=True)
class RunCells:
    run_id: str
    grader_version: str | None
    """The version the grades were made by when the cells were computed; None: never graded."""
    items: tuple[str, ...]
    """The run's items ("sample#epoch"): by sample position, then epoch (records order)."""
    models: dict[str, ModelCells]


@dataclass(frozen=True)
class AnswerMark:
    """What the cells need of one stored answer (`answer_marks`)."""

    model: str
    sample_id: str
    position: int
    """The sample's place in the run's dataset."""
    epoch: int
    failed: bool
    error: str
    """The failed call's error ("" for an answer)."""
    prompt_tokens: int
    """0 when unknown, like `completion_tokens`."""
    completion_tokens: int
    reused: bool
    batched: bool
    outcome: str | None
    """The stored grade's outcome; None: never graded."""


_CELL = ("n_scored", "correct", "accuracy", "ci_low", "ci_high")
"""The columns of `ModelCells.overall` (n, correct, accuracy, ci_low, ci_high)."""
_COLUMNS = tuple(
    c for f in fields(ModelCells) for c in (_CELL if f.name == "overall" else (f.name,))
)
_INSERT = (
    f"INSERT INTO board_cells (run_id, {', '.join(_COLUMNS)})"
    f" VALUES (?, {', '.join('?' for _ in _COLUMNS)})"
)
_MARKS = (
    "SELECT r.model, r.sample_id, s.position, r.epoch, r.status = 'call_failed',"
    " CASE WHEN r.status = 'call_failed' THEN r.error ELSE '' END,"
    " MAX(r.prompt_tokens, 0), MAX(r.completion_tokens, 0),"
    " COALESCE(r.cached_from, '') <> '', COALESCE(r.batch_id, '') <> '', c.outcome"
    " FROM records r JOIN samples s ON s.run_id = r.run_id AND s.sample_id = r.sample_id"
    " LEFT JOIN scores c ON c.run_id = r.run_id AND c.model = r.model"
    " AND c.sample_id = r.sample_id AND c.epoch = r.epoch"
    " WHERE r.run_id = ? ORDER BY r.model, s.position, r.epoch"
)
"""Each record of a run, without its reply, with its grade's outcome: in `records` order."""


def read(store: Transactions, run_id: str, recipe: int) -> RunCells | None:
    """The run's cells computed by `recipe`, or None when they are not there (never computed,
    dropped since, or computed another way)."""
    with store.transaction(f"read the board cells of run {run_id}", write=False) as db:
        return _read(db, run_id, recipe)


def _read(db: sqlite3.Connection, run_id: str, recipe: int) -> RunCells | None:
    head = db.execute(
        "SELECT grader_version, items, recipe FROM board_runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    if head is None or head[2] != recipe:
        return None
    cursor = db.cursor()
    cursor.row_factory = None
    rows = cursor.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM board_cells WHERE run_id = ?", (run_id,)
    ).fetchall()
    version = head[0]
    return RunCells(
        run_id,
        None if version is None else str(version),
        tuple(json.loads(head[1])),
        {str(r[0]): ModelCells(r[0], r[1], Cell(*r[2:7]), *r[7:]) for r in rows},
    )


def computed(
    store: Transactions,
    run_id: str,
    compute: Callable[[str | None, tuple[str, ...], Iterator[AnswerMark]], RunCells],
    recipe: int,
) -> RunCells:
    """The run's cells as stored by `recipe`, else `compute(grader version, its items, its
    answers)` stored (as made by `recipe`) and returned: its items are "sample#epoch" of every
    sample (in position order) and every epoch up to the highest stored, the order the answers
    come in within one model. Computed and written in one write transaction,
    so no answer or grade can change between the reading and the writing (the triggers would
    not see that change: its cells are not there yet)."""

    def make(db: sqlite3.Connection, version: str | None, items: tuple[str, ...]) -> RunCells:
        return compute(version, items, _marks(db, run_id))

    cells = _stored(store, run_id, recipe, make, since=None)
    assert cells is not None  # made without `since`: always
    return cells


def made(
    store: Transactions,
    run_id: str,
    make: Callable[[str | None, tuple[str, ...]], RunCells | None],
    recipe: int,
    since: int,
) -> RunCells | None:
    """The run's cells as stored by `recipe`, else `make(grader version, its items)` (the same
    items as `computed`'s) stored and returned, made from statistics read when the store's
    `data_version` was `since`: only if no other writer has changed the store since (else its
    answers or grades may have changed after they were read, and the triggers that drop stale
    cells fired before these were there), and `make` gives cells. None: nothing stored."""
    return _stored(store, run_id, recipe, lambda _, v, items: make(v, items), since=since)


def data_version(store: Transactions) -> int:
    """The store's SQLite `data_version` on this connection: it changes when another
    connection commits (`made`)."""
    with store.transaction("read the store's data version", write=False) as db:
        return int(db.execute("PRAGMA data_version").fetchone()[0])


def _stored(
    store: Transactions,
    run_id: str,
    recipe: int,
    make: Callable[[sqlite3.Connection, str | None, tuple[str, ...]], RunCells | None],
    since: int | None,
) -> RunCells | None:
    cells = read(store, run_id, recipe)
    if cells is not None:
        return cells
    with store.transaction(f"compute the board cells of run {run_id}", write=True) as db:
        require_run(db, store.db_path, run_id)
        cells = _read(db, run_id, recipe)  # another process may have computed them meanwhile
        if cells is not None:
            return cells
        if since is not None and db.execute("PRAGMA data_version").fetchone()[0] != since:
            return None
        version = db.execute(
            "SELECT grader_version FROM gradings WHERE run_id = ?", (run_id,)
        ).fetchone()
        grader = None if version is None else str(version[0])
        cells = make(db, grader, _items(db, run_id))
        if cells is None:
            return None
        db.execute("DELETE FROM board_runs WHERE run_id = ?", (run_id,))
        db.execute("DELETE FROM board_cells WHERE run_id = ?", (run_id,))
        db.execute(
            "INSERT INTO board_runs (run_id, grader_version, items, recipe, computed_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (run_id, grader, json.dumps(list(cells.items)), recipe, now()),
        )
        db.executemany(_INSERT, (_row(run_id, m) for m in cells.models.values()))
    return cells


def _row(run_id: str, m: ModelCells) -> tuple[object, ...]:
    o = m.overall
    rest = (getattr(m, f.name) for f in fields(ModelCells)[3:])
    return (run_id, m.model, m.n_items, o.n, o.correct, o.accuracy, o.ci_low, o.ci_high, *rest)


def _items(db: sqlite3.Connection, run_id: str) -> tuple[str, ...]:
    top = db.execute("SELECT MAX(epoch) FROM records WHERE run_id = ?", (run_id,)).fetchone()[0]
    samples = db.execute(
        "SELECT sample_id FROM samples WHERE run_id = ? ORDER BY position", (run_id,)
    ).fetchall()
    epochs = range((top or 0) + 1)
    return tuple(f"{s[0]}#{e}" for s in samples for e in epochs)


def _marks(db: sqlite3.Connection, run_id: str) -> Iterator[AnswerMark]:
    cursor = db.cursor()
    cursor.row_factory = None
    for row in cursor.execute(_MARKS, (run_id,)):
        yield AnswerMark(
            row[0], row[1], row[2], row[3], bool(row[4]), row[5], row[6], row[7],
            bool(row[8]), bool(row[9]), row[10],
        )  # fmt: skip


def missing(store: Transactions, run_ids: Sequence[str], recipe: int) -> list[str]:
    """Of `run_ids`, those whose cells by `recipe` are not there."""
    with store.transaction("read which runs have board cells", write=False) as db:
        rows = db.execute("SELECT run_id FROM board_runs WHERE recipe = ?", (recipe,))
        have = {str(r[0]) for r in rows.fetchall()}
    return [r for r in run_ids if r not in have]
