"""Graded items → accuracy per model, overall, by category and by difficulty.

A failed call and an unscored item are left out of every denominator: they say nothing about the
model's answer. Every other outcome that is not "correct" (wrong, no_answer, truncated, violation,
refused) counts against the model.

Intervals are 95 % Wilson intervals; when an item has several scored replies (`--samples N`)
they are clustered by item (`clustered_wilson_interval`, Miller 2024): the replies to one item
are not independent, so 3 items × 4 replies count for about 3 items, not 12. A tier is given
only on a scale the task defines (`tiers`), and only when the whole interval lies in one tier;
else it is "?" and `tier_label` says why.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from proctor.stats.intervals import clustered_wilson_interval, wilson_interval
from proctor.stats.tiers import TIERS, Tier, tier_for
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
    """The tier on the task's scale; "" when the task has none, "?" when withheld (the
    interval spans two tiers: `tier_label` says so)."""
    tier_label: str
    mean_latency_s: float | None
    """Mean over calls that returned (failed calls excluded)."""
    total_prompt_tokens: int
    total_completion_tokens: int
    """Sums of the counts known; `unknown_usage` answers had a count that was not a count."""
    retries: int
    unknown_usage: int = 0
    """Answers (not failed calls) whose token counts were unknown: the totals are lower bounds."""

    @property
    def overall(self) -> Cell:
        """The model's accuracy over every scored item, as one slice (`n`: the scored items)."""
        return Cell(self.n_scored, self.correct, self.accuracy, self.ci_low, self.ci_high)


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


def summarize(
    items: Sequence[GradedItem],
    models: Sequence[str] = (),
    *,
    tiers: Sequence[Tier] | None = TIERS,
) -> RunMetrics:
    """Metrics per model, in the order of `models` and then of first appearance in `items`;
    tiers on the scale `tiers` (None: the task has no tier scale, and `tier` is "").

    A model named in `models` without any item still gets a row (nothing scored).
    """
    grouped: dict[str, list[GradedItem]] = {name: [] for name in models}
    for item in items:
        grouped.setdefault(item.record.model, []).append(item)
    return RunMetrics(
        models=tuple(_model_metrics(name, group, tiers) for name, group in grouped.items())
    )


def scored_cell(items: Sequence[GradedItem]) -> Cell:
    """The accuracy of the scored items, its interval clustered by sample when a sample has
    several scored replies."""
    scored = [item for item in items if item.score.outcome not in NOT_SCORED]
    return rights_cell(
        [item.score.outcome == "correct" for item in scored], [item.sample.id for item in scored]
    )


def rights_cell(rights: Sequence[bool], clusters: Sequence[str]) -> Cell:
    """The accuracy of scored replies (`rights`: each right or not) with its interval,
    clustered by `clusters` (each reply's sample id) when a sample has several."""
    correct = sum(rights)
    if len(set(clusters)) == len(clusters):
        return cell(correct, len(rights))
    low, high = clustered_wilson_interval(rights, clusters)
    return Cell(n=len(rights), correct=correct, accuracy=correct / len(rights), ci_low=low,
                ci_high=high)  # fmt: skip


def tier_of(c: Cell, tiers: Sequence[Tier] | None) -> tuple[str, str]:
    """(tier, meaning) of a cell on a scale: the tier only when the whole interval lies in it,
    else "?" and why it is withheld; ("", "") when there is no scale."""
    if tiers is None:
        return "", ""
    if c.accuracy is None or c.ci_low is None or c.ci_high is None:
        return tier_for(None).name, tier_for(None).label
    low, high = tier_for(c.ci_low, tiers), tier_for(c.ci_high, tiers)
    if low == high:
        return low.name, low.label
    return "?", (
        f"withheld: the 95 % interval {c.ci_low * 100:.1f}–{c.ci_high * 100:.1f} % spans tiers "
        f"{high.name} to {low.name} (more items would tell)"
    )


def ranked(metrics: RunMetrics | Iterable[ModelMetrics]) -> list[ModelMetrics]:
    """Best first: accuracy descending, nothing-scored last, ties broken by model name."""
    rows = metrics.models if isinstance(metrics, RunMetrics) else tuple(metrics)
    return sorted(rows, key=lambda m: (m.accuracy is None, -(m.accuracy or 0.0), m.model))


def _model_metrics(
    model: str, items: Sequence[GradedItem], tiers: Sequence[Tier] | None
) -> ModelMetrics:
    # One pass over the model's items (a 50 × 2,000 run had a dozen passes each).
    tally = MetricsTally()
    for item in items:
        tally.add(item)
    return tally.metrics(model, tiers, lambda: items)


class MetricsTally:
    """One model's `ModelMetrics` counted one answer at a time (`add`), so that its answers need
    not be held: counts per outcome, category and difficulty, tokens, latencies (8 bytes each),
    the scored samples met. Only when a sample has several scored replies are the answers read
    again (`metrics`' `again`), for the intervals clustered by sample."""

    def __init__(self) -> None:
        self.outcomes: dict[Outcome, int] = dict.fromkeys(OUTCOMES, 0)
        self.n_items = self.n_scored = self.correct = self.formatted = 0
        self.prompt_tokens = self.completion_tokens = self.retries = self.unknown_usage = 0
        self.scored_ids: set[str] = set()
        self.returned = array("d")
        self.by_category: dict[str, list[int]] = {}  # value → [scored, correct]
        self.by_difficulty: dict[str, list[int]] = {}

    def add(self, item: GradedItem) -> None:
        score, record, sample = item.score, item.record, item.sample
        outcome = score.outcome
        self.n_items += 1
        self.outcomes[outcome] += 1
        category = self.by_category.get(sample.category) or self.by_category.setdefault(
            sample.category, [0, 0]
        )
        difficulty = self.by_difficulty.get(sample.difficulty) or self.by_difficulty.setdefault(
            sample.difficulty, [0, 0]
        )
        if outcome not in NOT_SCORED:
            self.n_scored += 1
            self.scored_ids.add(sample.id)
            category[0] += 1
            difficulty[0] += 1
            if outcome == "correct":
                self.correct += 1
                category[1] += 1
                difficulty[1] += 1
            if score.format_ok:
                self.formatted += 1
        usage = record.usage
        if record.status == "ok":
            self.returned.append(record.latency_s)
            if not usage.known:
                self.unknown_usage += 1
        self.prompt_tokens += usage.prompt_tokens or 0
        self.completion_tokens += usage.completion_tokens or 0
        self.retries += max(record.attempts - 1, 0)

    def metrics(
        self, model: str, tiers: Sequence[Tier] | None, again: Callable[[], Sequence[GradedItem]]
    ) -> ModelMetrics:
        """The metrics of the answers added; `again`: those answers again, asked for only when
        a sample has several scored replies."""
        n_scored = self.n_scored
        if len(self.scored_ids) == n_scored:  # one scored reply per sample: plain Wilson cells
            overall = cell(self.correct, n_scored)
            categories = {value: cell(c, n) for value, (n, c) in self.by_category.items()}
            difficulties = {value: cell(c, n) for value, (n, c) in self.by_difficulty.items()}
            difficulties = {
                value: difficulties[value]
                for value in [*(v for v in DIFFICULTY_ORDER if v in difficulties), *difficulties]
            }
        else:  # several replies to a sample: intervals clustered by sample
            items = again()
            overall = scored_cell(items)
            categories = _by(items, lambda item: item.sample.category, ())
            difficulties = _by(items, lambda item: item.sample.difficulty, DIFFICULTY_ORDER)
        tier, tier_label = tier_of(overall, tiers)
        returned = self.returned
        return ModelMetrics(
            model=model,
            n_items=self.n_items,
            n_scored=n_scored,
            correct=self.correct,
            accuracy=overall.accuracy,
            ci_low=overall.ci_low,
            ci_high=overall.ci_high,
            by_category=categories,
            by_difficulty=difficulties,
            outcomes=self.outcomes,
            format_compliance=self.formatted / n_scored if n_scored else None,
            tier=tier,
            tier_label=tier_label,
            mean_latency_s=sum(returned) / len(returned) if returned else None,
            total_prompt_tokens=self.prompt_tokens,
            total_completion_tokens=self.completion_tokens,
            retries=self.retries,
            unknown_usage=self.unknown_usage,
        )


def _by(
    items: Sequence[GradedItem],
    key: Callable[[GradedItem], str],
    first: Sequence[str],
) -> dict[str, Cell]:
    """Cells per key value: values in `first` in that order, then the others as they appear.

    A value whose items all went unscored still gets a cell, with nothing scored.
    """
    groups: dict[str, list[GradedItem]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    order = [value for value in first if value in groups]
    order += [value for value in groups if value not in first]
    return {value: scored_cell(groups[value]) for value in order}
