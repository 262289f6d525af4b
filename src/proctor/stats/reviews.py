"""A person's verdict on one stored reply, as the statistics read it: `HumanGrade` (what it
says, who gave it and when) and `GivenVerdict` (one stored verdict: a grade, and whether it was
given blind). `proctor.stats.human` counts them, `proctor.stats.drift` measures their agreement.
Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HumanGrade:
    """A person's verdict on one reply (the one that counts, in `proctor.stats.human`)."""

    model: str
    sample_id: str
    epoch: int
    verdict: str
    """"correct" or "wrong" (a given verdict may also be "skip": it never counts)."""
    reviewer: str
    note: str
    reviewed_at: str

    @property
    def words(self) -> str:
        """ "wrong · ann: misses the refund", as pages show it beside the rules' grade."""
        return f"{self.verdict} · {self.reviewer}" + (f": {self.note}" if self.note else "")

    @property
    def key(self) -> tuple[str, str, int]:
        """(model, sample id, epoch): the reply it is on."""
        return (self.model, self.sample_id, self.epoch)


@dataclass(frozen=True)
class GivenVerdict(HumanGrade):
    """One stored verdict, as the statistics read it (the store's `HumanVerdict`, in stored
    order)."""

    blind: bool = False
    """Given in a re-grade that hid the reviewer's earlier verdict (drift)."""
