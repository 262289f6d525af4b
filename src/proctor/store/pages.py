"""A run's answers a page at a time (records with their samples and stored grades, read
together from `samples`, `records` and `scores`): how a re-grade of a big run walks it with one
page in memory, in one process or spread over several."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from proctor.store import codec
from proctor.store.records import READ_COLUMNS
from proctor.store.scores import StoredScore
from proctor.store.tables import Transactions, reading_run, tuples
from proctor.types import GradedItem, Record, Sample, Score


@dataclass(frozen=True)
class AnswerWindow:
    """One page of a run's answers: one model's records of the samples at positions
    [start, stop); `whole_paper` when that is every sample of the run."""

    run_id: str
    model: str
    start: int
    stop: int
    whole_paper: bool


_SCORE_VALUES = codec.SCORE_READ_COLUMNS
_PAGE_SQL = (
    "SELECT {columns}, s.position, s.data FROM samples s JOIN records r"
    " ON r.run_id = s.run_id AND r.model = ? AND r.sample_id = s.sample_id{join}"
    " WHERE s.run_id = ? AND s.position >= ? AND s.position < ?"
    " ORDER BY s.position, r.epoch"
)
_PAGE = _PAGE_SQL.format(columns=READ_COLUMNS, join="")
_SCORED_PAGE = _PAGE_SQL.format(
    columns=READ_COLUMNS + "".join(f", g.{c}" for c in _SCORE_VALUES),
    join=" LEFT JOIN scores g ON g.run_id = r.run_id AND g.model = r.model"
    " AND g.sample_id = r.sample_id AND g.epoch = r.epoch",
)


def answer_pages(
    store: Transactions, run_id: str, page_size: int
) -> Iterator[list[tuple[Record, Sample]]]:
    """Every stored record with its sample, in `records` order, `page_size` samples (of one
    model, all their epochs) at a time.

    Each page is read in a transaction of its own and none is open between pages, so the
    caller may write (e.g. `save_regraded_pages`) while it reads; memory holds one page."""
    for page in _answer_pages(store, run_id, page_size, scored=False):
        yield [(record, sample) for record, sample, _ in page]


def _answer_pages(
    store: Transactions, run_id: str, page_size: int, *, scored: bool
) -> Iterator[list[tuple[Record, Sample, StoredScore | None]]]:
    # Epochs of one sample share its Sample; so do all models when the paper fits one page
    # (50 models × 2,000 items decode 2,000 samples, not 100,000).
    samples: dict[int, Sample] = {}
    for window in answer_windows(store, run_id, page_size):
        page = answer_page(store, window, scored=scored, samples=samples)
        if page:
            yield page


def answer_windows(store: Transactions, run_id: str, page_size: int) -> list[AnswerWindow]:
    """The pages of `answer_pages`, in its order, as windows `answer_page` reads (another
    process may read them from its own store)."""
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    with reading_run(store, run_id, "read records") as db:
        models = [m for (m,) in tuples(
            db, "SELECT DISTINCT model FROM records WHERE run_id = ? ORDER BY model", (run_id,)
        )]  # fmt: skip
        (end,) = tuples(
            db, "SELECT COALESCE(MAX(position) + 1, 0) FROM samples WHERE run_id = ?", (run_id,)
        )[0]
    return [
        AnswerWindow(run_id, model, start, min(start + page_size, end), end <= page_size)
        for model in models
        for start in range(0, end, page_size)
    ]


def answer_page(
    store: Transactions,
    window: AnswerWindow,
    *,
    scored: bool,
    samples: dict[int, Sample] | None,
) -> list[tuple[Record, Sample, StoredScore | None]]:
    """The records of one window with their samples and (when `scored`) stored grades, in
    `records` order. `samples` (by position) are reused and, for a window of the whole
    paper, kept for the next one."""
    # Samples by position, then each one's records by the primary key: rows come out in
    # order without sorting the run, and a position window is a cheap range read. The
    # stored grade comes by the primary key too (NULL outcome: none).
    sql = _SCORED_PAGE if scored else _PAGE
    with store.transaction(f"read records of run {window.run_id}", write=False) as db:
        rows = tuples(db, sql, (window.model, window.run_id, window.start, window.stop))
    if samples is None or not window.whole_paper:
        samples = {}
    width = len(codec.RECORD_READ_COLUMNS)
    page: list[tuple[Record, Sample, StoredScore | None]] = []
    for row in rows:
        sample = samples.get(row[-2])
        if sample is None:
            sample = samples[row[-2]] = codec.sample_from_json(row[-1])
        stored = row[width : width + len(_SCORE_VALUES)] if scored else None
        page.append((codec.record_from_row(row), sample, stored if stored and stored[0] else None))
    return page


def graded_items(
    store: Transactions, run_id: str, ungraded: Score, page_size: int, model: str | None = None
) -> Iterator[GradedItem]:
    """Every stored record (of `model`, when named) with its sample and stored grade
    (`ungraded` for a record never graded), in `records` order, as `scores.graded_items` lists
    them, but read a page at a time: memory holds one page (and the paper's samples when it
    fits one), whatever the run."""
    samples: dict[int, Sample] = {}
    windows = answer_windows(store, run_id, page_size)
    for window in windows if model is None else [w for w in windows if w.model == model]:
        # Identical grades share one Score, within a page (across pages the cache would grow
        # with the run: a grade's explanation often names its reply).
        grades: dict[StoredScore, Score] = {}
        for record, sample, stored in answer_page(store, window, scored=True, samples=samples):
            if stored is None:
                yield GradedItem(sample, record, ungraded)
                continue
            score = grades.get(stored)
            if score is None:
                score = grades[stored] = codec.score_from_values(stored)
            yield GradedItem(sample, record, score)
