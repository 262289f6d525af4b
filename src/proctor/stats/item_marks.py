"""Each reply's mark, one byte per (sample, epoch): `RIGHT`, `WRONG` or `NO_MARK` (not scored,
or not answered), counted one answer at a time beside a model's other statistics (`ModelTally`).

What the leaderboard keeps of a run per model (`proctor.store.board_cells`): its per-item
right/wrong. `ItemScores` cannot give it: it holds a sample's share of right replies over its
epochs (2 of 3), not which epoch was right. So the marks are their own tally, one bytearray per
epoch indexed by the run's shared sample numbers (`SampleIndex`): a byte per reply.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from proctor.stats.metrics import NOT_SCORED
from proctor.types import GradedItem

if TYPE_CHECKING:
    from proctor.stats.model_parts import SampleIndex

RIGHT, WRONG, NO_MARK = 1, 0, 255


class ItemMarks:
    """One model's marks: per epoch, a byte per sample number of the shared index."""

    def __init__(self, index: SampleIndex, epochs: list[bytearray]) -> None:
        self._index = index
        self._epochs = epochs

    def mark(self, sample_id: str, epoch: int) -> int:
        """The reply's mark; `NO_MARK` when it was not scored or not there."""
        k = self._index.number.get(sample_id)
        if k is None or not 0 <= epoch < len(self._epochs):
            return NO_MARK
        row = self._epochs[epoch]
        return row[k] if k < len(row) else NO_MARK

    def row(self, items: Iterable[tuple[str, int]]) -> bytes:
        """The marks of `items` ((sample id, epoch) each), in their order."""
        return bytes(self.mark(sample_id, epoch) for sample_id, epoch in items)

    def marked(self) -> dict[tuple[str, int], int]:
        """(sample id, epoch) → mark, of the replies marked."""
        ids = self._index.ids
        return {
            (ids[k], epoch): mark
            for epoch, row in enumerate(self._epochs)
            for k, mark in enumerate(row)
            if mark != NO_MARK
        }

    def __eq__(self, other: object) -> bool:
        """The same marks of the same replies (whatever the index's numbering)."""
        if not isinstance(other, ItemMarks):
            return NotImplemented
        return self.marked() == other.marked()

    __hash__ = None  # type: ignore[assignment]


class MarksTally:
    """`ItemMarks` counted one answer at a time (`add`); `marks()` gives them."""

    def __init__(self, index: SampleIndex) -> None:
        self.index = index
        self.epochs: list[bytearray] = []

    def add(self, item: GradedItem) -> None:
        outcome = item.score.outcome
        if outcome in NOT_SCORED:
            return
        k, epoch = self.index.of(item.sample.id), item.record.epoch
        while len(self.epochs) <= epoch:
            self.epochs.append(bytearray())
        row = self.epochs[epoch]
        if k >= len(row):
            row.extend(bytes([NO_MARK]) * (k + 1 - len(row)))
        row[k] = RIGHT if outcome == "correct" else WRONG

    def marks(self) -> ItemMarks:
        return ItemMarks(self.index, self.epochs)
