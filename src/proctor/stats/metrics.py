"""Graded items → accuracy per model, overall, by category and by difficulty.

A failed call and an unscored item are left out of every denominator: they say nothing about the
model's answer. Every other outcome that is not "correct" (wrong, no_answer, truncated, violation,
refused) counts against the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from proctor.stats.intervals import wilson_interval
from proctor.stats.tiers import tier_for
from proctor.types import OUTCOMES, GradedItem, Outcome

NOT_SCORED: frozenset[Outcome] = frozenset({"call_failed", "unscored"})
"""Outcomes that never enter a denominator."""

DIFFICULTY_ORDER: tuple[str, ...] = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Cell:
    """Accuracy of one slice; `n` counts the scored items of the slice (the denominator)."""

    n: int
    correct: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class ModelMetrics:
    model: str
    n_items: int
    n_scored: int
    correct: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None
    by_category: dict[str, Cell]
    by_difficulty: dict[str, Cell]
    outcomes: dict[Outcome, int]
    format_compliance: float | None
    """Share of scored items whose reply followed the requested answer format."""
    tier: str
    tier_label: str
    mean_latency_s: float | None
    """Mean over calls that returned (failed calls excluded)."""
    total_prompt_tokens: int
    total_completion_tokens: int
    """Sums of the counts known; `unknown_usage` answers had a count that was not a count."""
    retries: int
    unknown_usage: int = 0
    """Answers (not failed calls) whose token counts were unknown: the totals are lower bounds."""


@dataclass(frozen=True)
class RunMetrics:
    models: tuple[ModelMetrics, ...]
    """In input order: the order given to `summarize`, else first appearance in the items."""

    def model(self, name: str) -> ModelMetrics:
        for metrics in self.models:
            if metrics.model == name:
                return metrics
        raise KeyError(name)


def cell(correct: int, n: int) -> Cell:
    if n == 0:
        return Cell(n=0, correct=0, accuracy=None, ci_low=None, ci_high=None)
    low, high = wilson_interval(correct, n)
    return Cell(n=n, correct=correct, accuracy=correct / n, ci_low=low, ci_high=high)


def summarize(items: Sequence[GradedItem], models: Sequence[str] = ()) -> RunMetrics:
    """Metrics per model, in the order of `models` and then of first appearance in `items`.

    A model named in `models` without any item still gets a row (nothing scored).
    """
    grouped: dict[str, list[GradedItem]] = {name: [] for name in models}
    for item in items:
        grouped.setdefault(item.record.model, []).append(item)
    return RunMetrics(models=tuple(_model_metrics(name, group) for name, group in grouped.items()))


def ranked(metrics: RunMetrics | Iterable[ModelMetrics]) -> list[ModelMetrics]:
    """Best first: accuracy descending, nothing-scored last, ties broken by model name."""
    rows = metrics.models if isinstance(metrics, RunMetrics) else tuple(metrics)
    return sorted(rows, key=lambda m: (m.accuracy is None, -(m.accuracy or 0.0), m.model))


def _model_metrics(model: str, items: Sequence[GradedItem]) -> ModelMetrics:
    scored = [item for item in items if item.score.outcome not in NOT_SCORED]
    correct = sum(1 for item in scored if item.score.outcome == "correct")
    overall = cell(correct, len(scored))
    outcomes: dict[Outcome, int] = dict.fromkeys(OUTCOMES, 0)
    for item in items:
        outcomes[item.score.outcome] += 1
    returned = [item.record.latency_s for item in items if item.record.status == "ok"]
    tier = tier_for(overall.accuracy)
    return ModelMetrics(
        model=model,
        n_items=len(items),
        n_scored=len(scored),
        correct=correct,
        accuracy=overall.accuracy,
        ci_low=overall.ci_low,
        ci_high=overall.ci_high,
        by_category=_by(items, lambda item: item.sample.category, ()),
        by_difficulty=_by(items, lambda item: item.sample.difficulty, DIFFICULTY_ORDER),
        outcomes=outcomes,
        format_compliance=(
            sum(1 for item in scored if item.score.format_ok) / len(scored) if scored else None
        ),
        tier=tier.name,
        tier_label=tier.label,
        mean_latency_s=sum(returned) / len(returned) if returned else None,
        total_prompt_tokens=sum(item.record.usage.prompt_tokens or 0 for item in items),
        total_completion_tokens=sum(item.record.usage.completion_tokens or 0 for item in items),
        retries=sum(max(item.record.attempts - 1, 0) for item in items),
        unknown_usage=sum(
            1 for item in items if item.record.status == "ok" and not item.record.usage.known
        ),
    )


def _by(
    items: Sequence[GradedItem],
    key: Callable[[GradedItem], str],
    first: Sequence[str],
) -> dict[str, Cell]:
    """Cells per key value: values in `first` in that order, then the others as they appear.

    A value whose items all went unscored still gets a cell, with nothing scored.
    """
    counts: dict[str, list[int]] = {}
    for item in items:
        tally = counts.setdefault(key(item), [0, 0])
        if item.score.outcome not in NOT_SCORED:
            tally[0] += item.score.outcome == "correct"
            tally[1] += 1
    order = [value for value in first if value in counts]
    order += [value for value in counts if value not in first]
    return {value: cell(counts[value][0], counts[value][1]) for value in order}
