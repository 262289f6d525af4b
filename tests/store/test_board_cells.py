"""`store/board_cells.py`: a run's board cells are computed once (from its answers as
`answer_marks` reads them) and read after; cells of another recipe are not these; and the
schema's triggers drop them, with every cell row, whenever what they were made of changes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proctor.stats.metrics import cell
from proctor.store import RunStore
from proctor.store import board_cells as cells_table
from proctor.store.board_cells import AnswerMark, ModelCells, RunCells
from proctor.types import Score
from support.store_factories import make_record

RECIPE = 7


class Counted:
    """A computation of cells that keeps what it was given: one row per model, the answers
    counted."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, tuple[str, ...], list[AnswerMark]]] = []

    def __call__(
        self, version: str | None, items: tuple[str, ...], marks: Iterator[AnswerMark]
    ) -> RunCells:
        seen = list(marks)
        self.calls.append((version, items, seen))
        models = {m.model: sum(1 for x in seen if x.model == m.model) for m in seen}
        return RunCells("r1", version, ("s00000#0",), {
            m: ModelCells(m, n, cell(0, 0), 0, 0, 0, 0, 0, 0, b"\xff")
            for m, n in models.items()
        })  # fmt: skip


@pytest.fixture
def graded(store: RunStore, run: str) -> str:
    store.add_records([make_record(run, f"s{i:05d}", model=m) for m in ("fake/a", "fake/b")
                       for i in range(3)])  # fmt: skip
    store.add_records([make_record(run, "s00001", model="fake/b", epoch=1, status="call_failed",
                                   error="Transient: refused")])  # fmt: skip
    store.save_scores(run, [("fake/a", "s00000", 0, Score("correct", "t", ""))], "arithmetic/1")
    return run


def test_cells_are_computed_once_and_read_after(store: RunStore, graded: str) -> None:
    compute = Counted()
    assert cells_table.read(store, graded, RECIPE) is None
    first = cells_table.computed(store, graded, compute, RECIPE)
    again = cells_table.computed(store, graded, compute, RECIPE)
    assert again == first == cells_table.read(store, graded, RECIPE) and len(compute.calls) == 1
    assert {m: c.n_items for m, c in first.models.items()} == {"fake/a": 3, "fake/b": 4}
    assert cells_table.read(store, graded, RECIPE + 1) is None  # another recipe's: not these
    assert cells_table.missing(store, [graded, "r-none"], RECIPE) == ["r-none"]


def test_the_answers_are_read_with_their_grades_in_records_order(
    store: RunStore, graded: str
) -> None:
    compute = Counted()
    cells_table.computed(store, graded, compute, RECIPE)
    ((version, items, marks),) = compute.calls
    assert version == "arithmetic/1"
    assert items == ("s00000#0", "s00000#1", "s00001#0", "s00001#1", "s00002#0", "s00002#1")
    order = [(m.model, m.position, m.epoch) for m in marks]
    assert order == sorted(order) and len(order) == 7
    first = marks[0]
    assert (first.model, first.sample_id, first.outcome, first.failed) == (
        "fake/a", "s00000", "correct", False,
    )  # fmt: skip
    (failed,) = [m for m in marks if m.failed]
    assert (failed.error, failed.outcome, failed.epoch) == ("Transient: refused", None, 1)
    assert {(m.prompt_tokens, m.completion_tokens, m.reused, m.batched) for m in marks} == {
        (10, 3, False, False)
    }


CHANGES = ["record", "grade", "grader", "all grades", "samples", "plan"]


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_of_what_cells_are_made_of_drops_them(
    store: RunStore, graded: str, change: str
) -> None:
    cells_table.computed(store, graded, Counted(), RECIPE)
    if change == "record":
        store.add_records([make_record(graded, "s00002", model="fake/a", epoch=1)])
    elif change == "grade":
        store.add_scores(graded, [("fake/b", "s00002", 0, Score("wrong", "t", ""))])
    elif change == "grader":
        store.mark_graded(graded, "arithmetic/2")
    elif change == "all grades":
        store.save_scores(graded, [], "arithmetic/1")
    else:
        with store.transaction("change the run", write=True) as db:
            if change == "samples":
                db.execute("DELETE FROM samples WHERE run_id = ? AND sample_id = 's00002'",
                           (graded,))  # fmt: skip
            else:
                db.execute("UPDATE runs SET dataset_size = 9 WHERE id = ?", (graded,))
    assert cells_table.read(store, graded, RECIPE) is None
    with store.transaction("count cells", write=False) as db:
        left = db.execute("SELECT COUNT(*) FROM board_cells WHERE run_id = ?", (graded,))
        assert left.fetchone()[0] == 0


def test_a_change_of_the_runs_state_keeps_them(store: RunStore, graded: str) -> None:
    first = cells_table.computed(store, graded, Counted(), RECIPE)
    store.set_status(graded, "complete")
    assert cells_table.read(store, graded, RECIPE) == first
