"""Two models on the same items, computed once: per-item differences, flipped items, each side's
accuracy and each category's change on the items both scored, and a significance verdict
(`proctor compare`, the viewer's comparison page and `proctor gate --baseline` read it; the
renderers are `proctor.report.compare` and the viewer's page).

Pure: it reads graded items (of one run or of two) and never opens the store. Two runs are
compared pair by pair (`compare_run_items`): the models both runs have, by name; then each model
of one run that the other lacks, against the other's only model when it has one (so a run B of
two models beside a run A of one shows both of B's); a model left without a partner is named,
never silently dropped. Items are matched
by sample id; when an item was asked several times its score is the share of correct replies.
An item whose calls failed (or went unscored) on either side is left out of the comparison and
counted. Ids present in both runs whose question or target differ are left out too and named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from proctor.stats.intervals import clustered_mean_interval, wilson_interval
from proctor.stats.margin import MarginDecision, decide_margin
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.paired import DEFAULT_TEST, PairedComparison, PairedTest, compare_paired
from proctor.stats.scores import item_scores
from proctor.stats.taxonomy import taxonomy_counts
from proctor.types import GradedItem, RunInfo, Sample


@dataclass(frozen=True)
class Side:
    """One side of a comparison: which run and which model."""

    label: str
    """How the side is named in the verdict: the model, or "model (run)" when both sides are
    the same model."""
    model: str
    info: RunInfo


@dataclass(frozen=True)
class FlippedItem:
    """An item the two sides scored differently."""

    sample: Sample
    score_a: float
    score_b: float
    answer_a: str
    answer_b: str


@dataclass(frozen=True)
class SideScore:
    """One side's mean score over the paired items, and its interval (items clustered)."""

    n: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class CategoryChange:
    """One category's paired items: each side's mean score there, and B − A."""

    n: int
    accuracy_a: float
    accuracy_b: float

    @property
    def change(self) -> float:
        return self.accuracy_b - self.accuracy_a


@dataclass(frozen=True)
class RunComparison:
    a: Side
    b: Side
    paired: PairedComparison
    common_ids: int
    """Sample ids both sides were asked."""
    only_a: int
    """Ids only side A was asked (left out)."""
    only_b: int
    mismatched: tuple[str, ...]
    """Ids both have whose question or target differ (left out)."""
    unscored_a: int
    """Common items with no scored reply on side A: failed calls or unscored (left out)."""
    unscored_b: int
    regressions: tuple[FlippedItem, ...]
    """A scored higher than B: with "A = baseline, B = candidate", what B broke."""
    improvements: tuple[FlippedItem, ...]
    taxonomy_a: Mapping[str, int]
    taxonomy_b: Mapping[str, int]
    side_a: SideScore
    """Side A's accuracy on the paired items (those both sides scored), with its interval."""
    side_b: SideScore
    by_category: Mapping[str, CategoryChange]
    """Each category's accuracy on each side, over the paired items of that category."""
    margin: MarginDecision | None = None
    """With a margin asked: the verdict of B (candidate) against A (baseline) within it."""

    @property
    def same_dataset(self) -> bool:
        return self.a.info.dataset_hash == self.b.info.dataset_hash

    @property
    def b_significantly_worse(self) -> bool:
        """B lost to A and the test says it is not noise: the CI signal."""
        return self.paired.significant and self.paired.difference > 0


def side_labels(model_a: str, model_b: str, run_a: str, run_b: str) -> tuple[str, str]:
    """Model names, or "model (run)" when the two sides are the same model."""
    if model_a != model_b:
        return model_a, model_b
    return f"{model_a} ({run_a})", f"{model_b} ({run_b})"


def compare_runs(
    items_a: Sequence[GradedItem],
    items_b: Sequence[GradedItem],
    a: Side,
    b: Side,
    *,
    test: PairedTest = DEFAULT_TEST,
    margin: float | None = None,
) -> RunComparison:
    """Compare side A's model in `items_a` with side B's model in `items_b` (the same list when
    both models are of one run); with `margin` (a share), also the margin verdict of B against
    A (`proctor.stats.margin`)."""
    mine_a = [item for item in items_a if item.record.model == a.model]
    mine_b = [item for item in items_b if item.record.model == b.model]
    samples_a = _samples(mine_a)
    samples_b = _samples(mine_b)
    common = [sid for sid in samples_a if sid in samples_b]
    mismatched = tuple(
        sid
        for sid in common
        if (samples_a[sid].input, samples_a[sid].target)
        != (samples_b[sid].input, samples_b[sid].target)
    )
    usable = [sid for sid in common if sid not in set(mismatched)]
    scores_a, scores_b = item_scores(mine_a), item_scores(mine_b)
    paired_ids = [sid for sid in usable if sid in scores_a and sid in scores_b]
    paired = compare_paired(
        [scores_a[sid] for sid in paired_ids],
        [scores_b[sid] for sid in paired_ids],
        names=(a.label, b.label),
        test=test,
    )
    answers_a, answers_b = _answers(mine_a), _answers(mine_b)
    flips = [
        FlippedItem(samples_a[sid], scores_a[sid], scores_b[sid], answers_a[sid], answers_b[sid])
        for sid in paired_ids
        if scores_a[sid] != scores_b[sid]
    ]
    kept = set(paired_ids)
    decision = None
    if margin is not None:
        decision = decide_margin(
            [scores_a[sid] for sid in paired_ids],
            [scores_b[sid] for sid in paired_ids],
            margin,
            names=(a.label, b.label),
            test=test,
        )
    return RunComparison(
        margin=decision,
        side_a=_side_score([scores_a[sid] for sid in paired_ids], test.confidence),
        side_b=_side_score([scores_b[sid] for sid in paired_ids], test.confidence),
        by_category=_by_category(paired_ids, samples_a, scores_a, scores_b),
        a=a,
        b=b,
        paired=paired,
        common_ids=len(common),
        only_a=len(samples_a) - len(common),
        only_b=len(samples_b) - len(common),
        mismatched=mismatched,
        unscored_a=sum(1 for sid in usable if sid not in scores_a),
        unscored_b=sum(1 for sid in usable if sid not in scores_b),
        regressions=tuple(f for f in flips if f.score_a > f.score_b),
        improvements=tuple(f for f in flips if f.score_b > f.score_a),
        taxonomy_a=taxonomy_counts([i for i in mine_a if i.sample.id in kept]).get(a.model, {}),
        taxonomy_b=taxonomy_counts([i for i in mine_b if i.sample.id in kept]).get(b.model, {}),
    )


def _samples(items: Sequence[GradedItem]) -> dict[str, Sample]:
    found: dict[str, Sample] = {}
    for item in items:
        found.setdefault(item.sample.id, item.sample)
    return found


def _answers(items: Sequence[GradedItem]) -> dict[str, str]:
    """Sample id → what the side answered: its scored replies' answers (or outcomes), joined."""
    said: dict[str, list[str]] = {}
    for item in items:
        if item.score.outcome in NOT_SCORED:
            continue
        score = item.score
        text = score.extracted if score.extracted is not None else f"({score.outcome})"
        said.setdefault(item.sample.id, []).append(text)
    return {sid: " / ".join(texts) for sid, texts in said.items()}


def _side_score(scores: Sequence[float], confidence: float) -> SideScore:
    """Wilson's interval when every item scored 0 or 1 (one reply each, or all alike), else the
    normal interval of the mean of the items' scores (each item its own cluster)."""
    if not scores:
        return SideScore(0, None, None, None)
    mean = sum(scores) / len(scores)
    if all(s in (0.0, 1.0) for s in scores):
        low, high = wilson_interval(int(sum(scores)), len(scores), confidence)
    elif len(scores) >= 2:
        low, high = clustered_mean_interval(scores, range(len(scores)), confidence)
        low, high = max(0.0, low), min(1.0, high)
    else:
        return SideScore(1, mean, None, None)
    return SideScore(len(scores), mean, low, high)


def _by_category(
    ids: Sequence[str],
    samples: Mapping[str, Sample],
    scores_a: Mapping[str, float],
    scores_b: Mapping[str, float],
) -> dict[str, CategoryChange]:
    groups: dict[str, list[str]] = {}
    for sid in ids:
        groups.setdefault(samples[sid].category, []).append(sid)
    return {
        cat: CategoryChange(
            len(group),
            sum(scores_a[s] for s in group) / len(group),
            sum(scores_b[s] for s in group) / len(group),
        )
        for cat, group in groups.items()
    }


@dataclass(frozen=True)
class ComparedPair:
    name: str
    """"model", or "model A → model B" when the two differ."""
    comparison: RunComparison


@dataclass(frozen=True)
class ComparedRuns:
    a: RunInfo
    b: RunInfo
    pairs: tuple[ComparedPair, ...]
    unpaired_a: tuple[str, ...]
    """Models of run A with no partner in run B (shown as such)."""
    unpaired_b: tuple[str, ...]


def model_pairs(
    models_a: Sequence[str], models_b: Sequence[str]
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(pairs, models of A left alone, models of B left alone), as the module docstring says."""
    pairs = [(m, m) for m in models_a if m in models_b]
    rest_a = [m for m in models_a if m not in models_b]
    rest_b = [m for m in models_b if m not in models_a]
    if len(models_a) == 1 and rest_b:
        pairs += [(models_a[0], m) for m in rest_b]
        rest_a, rest_b = [], []
    if len(models_b) == 1 and rest_a:
        pairs += [(m, models_b[0]) for m in rest_a]
        rest_a = []
    return pairs, rest_a, rest_b


def compare_run_items(
    info_a: RunInfo,
    items_a: Sequence[GradedItem],
    info_b: RunInfo,
    items_b: Sequence[GradedItem],
) -> ComparedRuns:
    """Every pair's comparison of run A's graded items with run B's."""
    pairs, alone_a, alone_b = model_pairs(info_a.models, info_b.models)
    compared = []
    for model_a, model_b in pairs:
        label_a, label_b = side_labels(model_a, model_b, info_a.run_id, info_b.run_id)
        comparison = compare_runs(
            items_a, items_b, Side(label_a, model_a, info_a), Side(label_b, model_b, info_b)
        )
        name = model_a if model_a == model_b else f"{model_a} → {model_b}"
        compared.append(ComparedPair(name, comparison))
    return ComparedRuns(info_a, info_b, tuple(compared), tuple(alone_a), tuple(alone_b))
