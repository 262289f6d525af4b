"""Cut-off replies bounded: per model, how many replies hit the token cap, and what accuracy
would be if every cut-off reply had been finished wrong — or right.

A reply is cut off when its finish reason is "length" (the provider stopped it at max_tokens)
or its grade is `truncated`. Every harness scores a cut-off reply as wrong; that is one end of
the truth, not the truth:

    accuracy, cut-off counted wrong   correct / scored                     (what is reported)
    accuracy, cut-off counted right   (correct + cut-off not correct) / scored
    accuracy on finished replies      correct among replies not cut off

The two first bound what the model would score with room to finish. Past `THRESHOLD` of a
model's scored replies cut off, a warning suggests a larger max_tokens (twice the cap the
replies hit); `proctor gate --strict` then exits non-zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from proctor.stats.metrics import NOT_SCORED
from proctor.types import GradedItem

THRESHOLD = 0.05
"""The share of cut-off replies past which a model's accuracy is warned about."""


@dataclass(frozen=True)
class CapHits:
    model: str
    scored: int
    capped: int
    """Scored replies cut off by max_tokens."""
    correct: int
    capped_correct: int
    """Cut-off replies graded correct all the same (a final answer given before the cut)."""
    cap: int | None
    """The max_tokens the cut-off replies hit: the run's setting, else the most output tokens
    one of them used."""
    threshold: float = THRESHOLD

    @property
    def rate(self) -> float:
        return self.capped / self.scored if self.scored else 0.0

    @property
    def accuracy_low(self) -> float | None:
        return self.correct / self.scored if self.scored else None

    @property
    def accuracy_high(self) -> float | None:
        if not self.scored:
            return None
        return (self.correct + self.capped - self.capped_correct) / self.scored

    @property
    def finished_accuracy(self) -> float | None:
        finished = self.scored - self.capped
        return (self.correct - self.capped_correct) / finished if finished else None

    @property
    def warned(self) -> bool:
        return self.scored > 0 and self.rate > self.threshold

    @property
    def suggested_max_tokens(self) -> int | None:
        if not self.warned or self.cap is None:
            return None
        return 2 * self.cap

    def warning(self) -> str | None:
        """One line when past the threshold, else None."""
        if not self.warned:
            return None
        low, high = self.accuracy_low or 0.0, self.accuracy_high or 0.0
        more = (
            f"; try max_tokens {self.suggested_max_tokens:,}"
            if self.suggested_max_tokens is not None
            else ""
        )
        return (
            f"{self.model}: {self.capped:,} of {self.scored:,} replies ({self.rate * 100:.1f} %) "
            f"hit the token cap; its accuracy lies between {low * 100:.1f} % (cut-off counted "
            f"wrong) and {high * 100:.1f} % (counted right){more}"
        )


def cut_off(item: GradedItem) -> bool:
    return item.record.finish_reason == "length" or item.score.outcome == "truncated"


def cap_hits(
    items: Sequence[GradedItem],
    models: Sequence[str],
    max_tokens: int | None,
    threshold: float = THRESHOLD,
) -> tuple[CapHits, ...]:
    """One row per model when any model has a cut-off reply; empty when none has."""
    rows = [
        model_cap_hits(model, [i for i in items if i.record.model == model], max_tokens, threshold)
        for model in models
    ]
    return tuple(rows) if any(r.capped for r in rows) else ()


def model_cap_hits(
    model: str, items: Iterable[GradedItem], max_tokens: int | None, threshold: float = THRESHOLD
) -> CapHits:
    """The row of one model, from its items alone (`cap_hits` shows the rows only when some
    model has a cut-off reply)."""
    tally = CapTally()
    for item in items:
        tally.add(item)
    return tally.result(model, max_tokens, threshold)


class CapTally:
    """One model's `CapHits`, counted one answer at a time."""

    def __init__(self) -> None:
        self.scored = self.capped = self.correct = self.capped_correct = 0
        self.most_used: int | None = None
        """The most completion tokens a cut-off reply used (of those with a count)."""

    def add(self, item: GradedItem) -> None:
        if item.score.outcome in NOT_SCORED:
            return
        right = item.score.outcome == "correct"
        self.scored += 1
        self.correct += right
        if cut_off(item):
            self.capped += 1
            self.capped_correct += right
            used = item.record.usage.completion_tokens
            if used and (self.most_used is None or used > self.most_used):
                self.most_used = used

    def result(self, model: str, max_tokens: int | None, threshold: float = THRESHOLD) -> CapHits:
        return CapHits(
            model=model,
            scored=self.scored,
            capped=self.capped,
            correct=self.correct,
            capped_correct=self.capped_correct,
            cap=max_tokens if max_tokens else self.most_used,
            threshold=threshold,
        )
