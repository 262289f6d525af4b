"""Reading a run a page at a time and saving its scores page by page; decoding stored rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from proctor.store.run_store import ScoreRow, StoredScore
from proctor.types import Record, Score
from support.store_factories import make_info, make_record, make_samples

SAMPLES = 11


@pytest.fixture
def big(store: RunStore) -> str:
    """Samples in an order that is not their id order, two models, two epochs, holes."""
    samples = make_samples(SAMPLES)[::-1]
    store.create_run(make_info("big", size=SAMPLES), samples, fingerprint="fp", config={})
    records = [
        make_record("big", s.id, model=m, epoch=e, text=f"Final answer: {i + e}")
        for i, s in enumerate(samples)
        for m in ("fake/b", "fake/a")
        for e in (1, 0)
        if (i + e) % 4 != 3 and not (m == "fake/b" and i == 0)
    ]
    store.add_records(records)
    return "big"


@pytest.mark.parametrize("page_size", [1, 2, 3, 5, SAMPLES, 1000])
def test_pages_hold_every_record_with_its_sample_in_records_order(
    store: RunStore, big: str, page_size: int
) -> None:
    pages = list(store.answer_pages(big, page_size))
    samples = {s.id: s for s in store.samples(big)}
    pairs = [pair for page in pages for pair in page]
    assert [r for r, _ in pairs] == store.records(big)
    assert all(s == samples[r.sample_id] for r, s in pairs)
    assert all(pages)
    # a page is at most page_size samples of one model (all their epochs)
    for page in pages:
        assert len({r.model for r, _ in page}) == 1
        assert len({r.sample_id for r, _ in page}) <= page_size


def test_epochs_of_a_sample_share_one_sample_object(store: RunStore, big: str) -> None:
    (page,) = list(store.answer_pages(big, 1))[:1]
    assert len(page) == 2 and page[0][1] is page[1][1]


def test_pages_of_an_empty_or_unknown_run(store: RunStore, run: str) -> None:
    assert list(store.answer_pages(run)) == []
    with pytest.raises(StoreError, match="no run"):
        list(store.answer_pages("nope"))
    with pytest.raises(ValueError, match="page_size"):
        list(store.answer_pages(run, 0))


def test_the_store_can_be_written_between_pages(store: RunStore, big: str) -> None:
    seen = 0
    for page in store.answer_pages(big, 2):
        seen += len(page)
        store.add_records([make_record(big, page[0][0].sample_id, model="fake/c")])
    assert seen == len(store.records(big, "fake/a")) + len(store.records(big, "fake/b"))


def _scores(records: Sequence[Record], outcome: str = "correct") -> list[ScoreRow]:
    return [(r.model, r.sample_id, r.epoch, Score(outcome, "r", r.text)) for r in records]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [("status", "maybe", "record status 'maybe'"), ("finish_reason", "bored", "finish reason")],
)
def test_a_bad_stored_value_is_named_when_read(
    store: RunStore, run: str, column: str, value: str, message: str
) -> None:
    store.add_records([make_record(run, "s00000")])
    db = sqlite3.connect(store.db_path)
    if column == "status":  # the table's CHECK forbids it: only a damaged file holds one
        db.execute("PRAGMA ignore_check_constraints = ON")
    db.execute(f"UPDATE records SET {column} = ?", (value,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=message):
        store.records(run)
    with pytest.raises(StoreError, match=message):
        list(store.answer_pages(run))


def _scored_pages(
    store: RunStore, run: str, size: int
) -> Iterator[list[tuple[Record, StoredScore | None]]]:
    for window in store.answer_windows(run, size):
        yield [(r, g) for r, _, g in store.answer_page(window)]


def _regraded(
    store: RunStore, run: str, new: dict[tuple[str, str, int], Score], size: int = 3
) -> Iterator[list[tuple[ScoreRow, StoredScore | None]]]:
    """Pages of (new score row, stored grade) as `grade_run` hands them to the store."""
    for page in _scored_pages(store, run, size):
        yield [
            ((r.model, r.sample_id, r.epoch, new[(r.model, r.sample_id, r.epoch)]), g)
            for r, g in page
        ]


def test_scored_pages_carry_each_stored_grade_or_none(store: RunStore, big: str) -> None:
    records = store.records(big)
    store.save_scores(big, _scores(records[:5], "wrong"), grader_version="old")
    pairs = [pair for page in _scored_pages(store, big, 2) for pair in page]
    assert (
        [r for r, _ in pairs]
        == records
        == [r for page in store.answer_pages(big, 2) for r, _ in page]
    )
    assert [g is not None for _, g in pairs] == [i < 5 for i in range(len(records))]
    assert pairs[0][1] == ("wrong", "r", records[0].text, None, None, 0)


def test_a_regrade_writes_only_what_changed_and_ends_like_saving_every_grade(
    store: RunStore, big: str
) -> None:
    records = store.records(big)
    old = _scores(records, "wrong")
    store.save_scores(big, old[:-2], grader_version="old")  # the last two never graded
    new = {(m, s, e): score for m, s, e, score in old}
    changed = {records[3], records[7]}
    for r in changed:
        new[(r.model, r.sample_id, r.epoch)] = Score("correct", "r", r.text, "7", "7", True)
    written = store.save_regraded_pages(big, _regraded(store, big, new), grader_version="new")
    assert written == len(changed) + 2
    assert store.scores(big) == new
    assert store.grader_version(big) == "new"
    # the same grades again: nothing to write, and the run names the new version
    assert store.save_regraded_pages(big, _regraded(store, big, new), grader_version="v3") == 0
    assert store.scores(big) == new and store.grader_version(big) == "v3"


def test_a_failed_regrade_keeps_old_scores_or_leaves_no_grader_version(
    store: RunStore, big: str
) -> None:
    records = store.records(big)
    store.save_scores(big, _scores(records, "wrong"), grader_version="old")

    def failing(after: int) -> Iterator[list[tuple[ScoreRow, object]]]:
        new = {(r.model, r.sample_id, r.epoch): Score("correct", "r", "") for r in records}
        for i, page in enumerate(_regraded(store, big, new)):
            if i == after:
                raise RuntimeError("grader bug")
            yield page  # type: ignore[misc]

    with pytest.raises(RuntimeError, match="grader bug"):
        store.save_regraded_pages(big, failing(0), grader_version="new")  # type: ignore[arg-type]
    assert store.grader_version(big) == "old"
    assert {s.outcome for s in store.scores(big).values()} == {"wrong"}
    with pytest.raises(RuntimeError, match="grader bug"):
        store.save_regraded_pages(big, failing(2), grader_version="new")  # type: ignore[arg-type]
    assert store.grader_version(big) is None
    assert {s.outcome for s in store.scores(big).values()} == {"wrong", "correct"}


def test_a_bad_outcome_is_refused_by_both_savers(store: RunStore, big: str) -> None:
    (r,) = store.records(big)[:1]
    with pytest.raises(StoreError, match="outcome 'great'"):
        store.save_scores(big, _scores([r], "great"), grader_version="g")
    bad = [((r.model, r.sample_id, r.epoch, Score("great", "r", "")), None)]  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="outcome 'great'"):
        store.save_regraded_pages(big, [bad], grader_version="g")
