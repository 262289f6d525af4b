"""`stats/item_marks.py`: each reply's mark by sample and epoch. Only "correct" is right;
not-scored replies, and replies never given, have no mark; marks of one model do not leak into
another's, though they share the sample numbers."""

from __future__ import annotations

from dataclasses import replace

from proctor.stats.item_marks import NO_MARK, RIGHT, WRONG, MarksTally
from proctor.stats.model_parts import SampleIndex
from proctor.types import GradedItem

from .conftest import MakeItem


def _at(item: GradedItem, sample_id: str, epoch: int) -> GradedItem:
    return replace(
        item,
        sample=replace(item.sample, id=sample_id),
        record=replace(item.record, sample_id=sample_id, epoch=epoch),
    )


def test_not_scored_replies_and_replies_never_given_have_no_mark(make_item: MakeItem) -> None:
    index = SampleIndex()
    tally = MarksTally(index)
    for outcome, sample, epoch in [
        ("unscored", "a", 0), ("call_failed", "a", 1), ("no_answer", "b", 0),
        ("wrong", "b", 1), ("correct", "c", 2),
    ]:  # fmt: skip
        tally.add(_at(make_item("m", outcome), sample, epoch))
    marks = tally.marks()
    assert marks.row([("a", 0), ("a", 1), ("b", 0), ("b", 1), ("c", 2)]) == bytes(
        [NO_MARK, NO_MARK, WRONG, WRONG, RIGHT]
    )  # a scored reply without an answer is wrong
    # never given: another epoch, a sample never met, an epoch past the last
    assert marks.row([("c", 0), ("c", 1), ("zzz", 0), ("b", 7), ("a", -1)]) == bytes(
        [NO_MARK] * 5
    )


def test_models_sharing_the_index_keep_their_own_marks(make_item: MakeItem) -> None:
    index = SampleIndex()
    first, second = MarksTally(index), MarksTally(index)
    first.add(_at(make_item("m1", "correct"), "a", 0))
    second.add(_at(make_item("m2", "wrong"), "b", 0))  # numbered after "a"
    second.add(_at(make_item("m2", "wrong"), "a", 0))
    assert first.marks().row([("a", 0), ("b", 0)]) == bytes([RIGHT, NO_MARK])
    assert second.marks().row([("a", 0), ("b", 0)]) == bytes([WRONG, WRONG])


def test_marks_are_equal_by_what_is_marked_not_by_the_numbering(make_item: MakeItem) -> None:
    ab, ba = MarksTally(SampleIndex()), MarksTally(SampleIndex())
    for sample, outcome in [("a", "correct"), ("b", "wrong")]:
        ab.add(_at(make_item("m", outcome), sample, 1))
    for sample, outcome in [("b", "wrong"), ("a", "correct")]:
        ba.add(_at(make_item("m", outcome), sample, 1))
    assert ab.marks() == ba.marks()
    assert ab.marks().marked() == {("a", 1): RIGHT, ("b", 1): WRONG}
    ba.add(_at(make_item("m", "wrong"), "c", 0))
    assert ab.marks() != ba.marks()
