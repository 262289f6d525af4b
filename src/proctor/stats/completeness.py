"""Whether a stored run is finished: every answer there, every call answered.

Three states per model, from the store alone (so `proctor run`, `score` and `report` agree):
answers missing (never asked: the deadline came first, or the run was killed), calls not asked
(stored as failed because the model's circuit breaker had opened), and calls failed after their
last attempt. The first two leave a run incomplete; the third, a run with failed calls."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from proctor.types import GradedItem

NOT_ASKED = "CircuitOpen"
"""The error type of a call never made because the model's circuit breaker was open."""


@dataclass(frozen=True)
class ModelCompleteness:
    model: str
    expected: int
    """Answers the run asks of this model (samples × replies per item)."""
    stored: int
    not_asked: int
    failed: int
    """Calls that failed after their last attempt (not counting `not_asked`)."""
    first_cause: str
    """The first failed call's reason, without its error type; "" when none failed."""
    first_cause_calls: int
    """How many failed calls share `first_cause`."""

    @property
    def missing(self) -> int:
        return max(0, self.expected - self.stored)

    @property
    def answered(self) -> int:
        return self.stored - self.not_asked - self.failed


@dataclass(frozen=True)
class Completeness:
    models: tuple[ModelCompleteness, ...]
    stopped_early: str = ""
    """Why the run stopped before asking everything on purpose (a sequential test decided,
    `proctor.runs.stopped`), in one sentence; "" for any other run. Its answers not asked are
    still missing (`incomplete`), by design rather than by accident."""

    @property
    def stopped_by_design(self) -> bool:
        """Stopped early on purpose, and nothing else wrong: no call failed or went unasked
        by a breaker."""
        return bool(self.stopped_early) and not any(m.failed or m.not_asked for m in self.models)

    @property
    def incomplete(self) -> bool:
        """Something was never asked: answers missing, or calls stopped by a breaker."""
        return any(m.missing or m.not_asked for m in self.models)

    @property
    def calls_failed(self) -> bool:
        return any(m.failed for m in self.models)


def completeness(
    items: Iterable[GradedItem], models: Sequence[str], expected: Mapping[str, int] | int
) -> Completeness:
    """The completeness of a run's graded items (one per stored record)."""
    per: dict[str, CompletenessTally] = {m: CompletenessTally() for m in models}
    for item in items:
        tally = per.get(item.record.model) or per.setdefault(item.record.model, CompletenessTally())
        tally.add(item)
    return Completeness(
        tuple(
            tally.result(model, expected if isinstance(expected, int) else expected.get(model, 0))
            for model, tally in per.items()
        )
    )


class CompletenessTally:
    """One model's `ModelCompleteness`, counted one answer at a time."""

    def __init__(self) -> None:
        self.stored = self.not_asked = self.failed = self.first_cause_calls = 0
        self.first_cause = ""

    def add(self, item: GradedItem) -> None:
        record = item.record
        self.stored += 1
        if record.status != "call_failed":
            return
        if record.error.startswith(NOT_ASKED + ":"):
            self.not_asked += 1
            return
        cause = _cause(record.error)
        if not self.failed:
            self.first_cause = cause
        self.failed += 1
        self.first_cause_calls += cause == self.first_cause

    def result(self, model: str, expected: int) -> ModelCompleteness:
        return ModelCompleteness(
            model=model,
            expected=expected,
            stored=self.stored,
            not_asked=self.not_asked,
            failed=self.failed,
            first_cause=self.first_cause,
            first_cause_calls=self.first_cause_calls,
        )


def _cause(error: str) -> str:
    """ "Transient: connection refused at h:p" → "connection refused at h:p"."""
    kind, sep, rest = error.partition(": ")
    return rest if sep and kind.isidentifier() else error
