"""A run's answers read one model at a time, each model's statistics made from its own answers
alone: how `build_statistics` reads a run of a million answers without holding them.

    answers (a list, or a stream in model order) ──► by_model ──► model_parts ──► ModelParts
                                                                   (one model's answers in memory)

Every per-model statistic of a report (accuracy and its cells, completeness, tokens and cost,
cut-off replies, the error taxonomy, repeated replies, the calculator's twin) depends on that
model's answers only, so it is made by the same function as before on them, and the answers are
dropped before the next model's are read. What pairs models (paired comparisons) keeps only
each model's per-item score, as compact arrays (`ItemScores`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from proctor.stats.calibration import CalibrationSummary, CalibrationTally
from proctor.stats.completeness import ModelCompleteness, completeness
from proctor.stats.cost import ModelLedger, PriceTable, ledger
from proctor.stats.gates import GateRow, JudgeScores, Requirement, gate_rows, model_rows
from proctor.stats.metrics import ModelMetrics, summarize
from proctor.stats.repeats import Estimate, RepeatMetrics, repeat_metrics
from proctor.stats.scores import item_scores
from proctor.stats.taxonomy import taxonomy_counts
from proctor.stats.tiers import Tier
from proctor.stats.truncation import CapHits, model_cap_hits
from proctor.types import GradedItem


@runtime_checkable
class ItemStream(Protocol):
    """A run's answers read again at each walk (`proctor.runs.grade.StoredItems`): too many to
    hold, so they come one after another, grouped by model (`RunStore.records` order)."""

    def __iter__(self) -> Iterator[GradedItem]: ...

    def __len__(self) -> int: ...

    def __contains__(self, item: object) -> bool: ...

    @property
    def max_epoch(self) -> int:
        """The highest epoch among the answers (0: one reply per item)."""
        ...

    @property
    def models(self) -> tuple[str, ...]:
        """The models that answered, in the stream's order."""
        ...

    def of_model(self, model: str) -> Iterator[GradedItem]:
        """One model's answers, in the stream's order."""
        ...


Items = Sequence[GradedItem] | ItemStream
"""A run's answers: held (a list, a tuple) or streamed."""


def max_epoch(items: Items) -> int:
    if isinstance(items, ItemStream):
        return items.max_epoch
    return max((i.record.epoch for i in items), default=0)


def held(items: Items) -> Sequence[GradedItem]:
    """The answers as a sequence: those held as they are, a stream read into a list (for who
    keeps a run's answers: the viewer's run, `proctor.load_run`)."""
    return list(items) if isinstance(items, ItemStream) else items


def in_model_order(items: Items, models: Sequence[str]) -> Iterator[GradedItem]:
    """The answers grouped by model: those of `models` in that order, then the others in order
    of first appearance; each model's in their own order (samples.csv, the sample browser)."""
    if isinstance(items, ItemStream):
        for model in [*models, *(m for m in items.models if m not in set(models))]:
            yield from items.of_model(model)
        return
    order = {name: position for position, name in enumerate(models)}
    for item in items:
        order.setdefault(item.record.model, len(order))
    yield from sorted(items, key=lambda item: order[item.record.model])


def by_model(items: Items) -> Iterator[tuple[str, list[GradedItem]]]:
    """(model, its answers) in order of first appearance. Answers held are grouped in memory
    (they are there already); a stream must come grouped by model, and a model met again after
    another one is an error (its statistics would be split in two)."""
    if not isinstance(items, ItemStream):
        grouped: dict[str, list[GradedItem]] = {}
        for item in items:
            grouped.setdefault(item.record.model, []).append(item)
        yield from grouped.items()
        return
    done: set[str] = set()
    model, group = "", list[GradedItem]()
    for item in items:
        if item.record.model != model or not group:
            if group:
                done.add(model)
                yield model, group
            model, group = item.record.model, []
            if model in done:
                raise ValueError(f"answers of {model} are not together: the stream is not in "
                                 "model order")  # fmt: skip
        group.append(item)
    if group:
        yield model, group


class SampleIndex:
    """Sample ids numbered in the order first met, shared by every model's `ItemScores`."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}
        self.ids: list[str] = []

    def of(self, sample_id: str) -> int:
        n = self.number.get(sample_id)
        if n is None:
            n = self.number[sample_id] = len(self.ids)
            self.ids.append(sample_id)
        return n


class ItemScores(Mapping[str, float]):
    """`item_scores` of one model (sample id → its share of correct replies), kept as two
    arrays: the samples in the model's order, and a value per sample of the shared index (NaN
    where the model has none). 12 bytes an item instead of a dict entry and a float object."""

    def __init__(self, scores: Mapping[str, float], index: SampleIndex) -> None:
        self._index = index
        self._order = array("q", (index.of(sid) for sid in scores))
        self._values = array("d", [math.nan]) * len(index.ids)
        for n, value in zip(self._order, scores.values(), strict=True):
            self._values[n] = value

    def __getitem__(self, sample_id: str) -> float:
        n = self._index.number.get(sample_id)
        value = self._values[n] if n is not None and n < len(self._values) else math.nan
        if math.isnan(value):
            raise KeyError(sample_id)
        return value

    def __contains__(self, sample_id: object) -> bool:
        n = self._index.number.get(sample_id) if isinstance(sample_id, str) else None
        return n is not None and n < len(self._values) and not math.isnan(self._values[n])

    def __iter__(self) -> Iterator[str]:
        return (self._index.ids[n] for n in self._order)

    def __len__(self) -> int:
        return len(self._order)


PerModelMetrics = Callable[[Sequence[GradedItem]], Mapping[str, Mapping[str, float]]]
"""A task's own metrics (`Task.metrics`): answers → per model, metric name → value."""

PerModelConfidences = Callable[[Sequence[GradedItem]], Mapping[str, Sequence[tuple[float, bool]]]]
"""A task's stated confidences (`Task.confidence`): answers → per model, (confidence, right)."""


@dataclass(frozen=True)
class Extras:
    """What a task or a run adds to each model's statistics beyond the counts, made like every
    other part from that model's answers alone: each function is given one model's answers at
    a time (what a task's metrics and confidences are: per model)."""

    metrics: PerModelMetrics | None = None
    confidence: PerModelConfidences | None = None
    gate: Sequence[Requirement] = ()
    """The run's own requirements (a suite's [gate]), checked on each model's answers."""
    judge: JudgeScores = field(default_factory=dict)
    """The judge's scores the gate's judge_mean reads."""


@dataclass(frozen=True)
class ModelParts:
    """One model's statistics, from its answers alone."""

    model: str
    metrics: ModelMetrics
    completeness: ModelCompleteness
    ledger: ModelLedger
    cap: CapHits
    taxonomy: Mapping[str, int]
    scores: ItemScores
    repeats: RepeatMetrics | None
    """None when the run has one reply per item (`max_epoch` 0)."""
    stability: Mapping[str, Estimate]
    """Kind (category) → share of its items whose replies all read the same; with repeats only."""
    calculator: ModelMetrics | None
    """A with-calculator model's metrics, named by its bare model; None for any other."""
    task_metrics: Mapping[str, float] | None = None
    """The task's own metrics of this model; None: the task has none, or none for it."""
    calibration: CalibrationSummary | None = None
    """Its stated confidences' calibration; None: no valid reply stated one."""
    gate: Mapping[int, GateRow] = field(default_factory=dict)
    """Its row of each gate requirement checked for it, by the requirement's position."""


@dataclass(frozen=True)
class PartsSettings:
    """What every model's parts are made with."""

    tiers: Sequence[Tier] | None
    expected: int
    prices: PriceTable
    max_tokens: int | None
    repeats: bool
    bare_of: Mapping[str, str]
    """A with-calculator model → its bare model (the pairs the run asked both of)."""
    extras: Extras = Extras()


def model_parts(
    model: str, items: Sequence[GradedItem], settings: PartsSettings, index: SampleIndex
) -> ModelParts:
    """The statistics of `model` from `items`, its answers (none: a model never answered)."""
    s = settings
    bare = s.bare_of.get(model)
    calculator = None
    if bare is not None:
        renamed = [replace(i, record=replace(i.record, model=bare)) for i in items]
        calculator = summarize(renamed, [bare], tiers=s.tiers).models[0]
    repeats, stability = None, {}
    if s.repeats and items:
        repeats = repeat_metrics(items)[model]
        stability = _stability(model, items)
    x = s.extras
    return ModelParts(
        model=model,
        metrics=summarize(items, [model], tiers=s.tiers).models[0],
        completeness=completeness(items, [model], s.expected).models[0],
        ledger=ledger(items, s.prices, [model])[0],
        cap=model_cap_hits(model, items, s.max_tokens),
        taxonomy=taxonomy_counts(items).get(model, {}),
        scores=ItemScores(item_scores(items), index),
        repeats=repeats,
        stability=stability,
        calculator=calculator,
        task_metrics=x.metrics(items).get(model) if x.metrics is not None and items else None,
        calibration=_calibration(x.confidence(items).get(model)) if x.confidence else None,
        gate=model_rows(x.gate, model, items, x.judge) if x.gate else {},
    )


def _calibration(pairs: Sequence[tuple[float, bool]] | None) -> CalibrationSummary | None:
    """The calibration of one model's (confidence, right) pairs, added one at a time."""
    if not pairs:
        return None
    tally = CalibrationTally()
    for confidence, correct in pairs:
        tally.add(confidence, correct)
    return tally.summary()


def _stability(model: str, items: Sequence[GradedItem]) -> dict[str, Estimate]:
    """Per kind, the stability of the model's items of that kind ("" : all its items)."""
    out = {"": repeat_metrics(items, ks=())[model].stability}
    kinds: dict[str, list[GradedItem]] = {}
    for item in items:
        if item.sample.category:
            kinds.setdefault(item.sample.category, []).append(item)
    for kind, part in kinds.items():
        out[kind] = repeat_metrics(part, ks=())[model].stability
    return out


@dataclass(frozen=True)
class Folded:
    """Every model's parts of a run."""

    parts: tuple[ModelParts, ...]
    """Every model's: the run's models first, in their order, then others as they appear."""
    answered: tuple[ModelParts, ...]
    """The models with answers, in order of first appearance."""
    kinds: Mapping[str, str]
    """Sample id → its kind (category), read only for a judge's summary; else empty."""
    categories: tuple[str, ...]
    """The kinds met, in order."""
    settings: PartsSettings

    def task_metrics(self) -> dict[str, Mapping[str, float]]:
        """The task's own metrics of each model that has some, in order of first appearance."""
        return {p.model: p.task_metrics for p in self.answered if p.task_metrics is not None}

    def calibration(self) -> dict[str, CalibrationSummary] | None:
        """The calibration of each model that stated confidences; None: no model did."""
        found = {p.model: p.calibration for p in self.answered if p.calibration is not None}
        return found or None

    def gate_rows(self, models: Sequence[str]) -> tuple[GateRow, ...]:
        """The rows of the run's gate (`Extras.gate`) from each model's parts, for `models`."""
        gate, judge = self.settings.extras.gate, self.settings.extras.judge

        def unanswered(model: str) -> dict[int, GateRow]:
            return model_rows(gate, model, [], judge)

        answered = {p.model: p.gate for p in self.answered}
        return tuple(gate_rows(gate, models, answered, unanswered))


def fold(items: Items, models: Sequence[str], settings: PartsSettings, *, judged: bool) -> Folded:
    """Each model's parts, its answers read and dropped before the next model's."""
    index = SampleIndex()
    kinds: dict[str, str] = {}
    categories: dict[str, None] = {}
    answered: list[ModelParts] = []
    for model, group in by_model(items):
        for item in group:
            if item.sample.category:
                categories[item.sample.category] = None
            if judged:
                kinds[item.sample.id] = item.sample.category
        answered.append(model_parts(model, group, settings, index))
        del group
    found = {p.model: p for p in answered}
    parts = [found.get(m) or model_parts(m, [], settings, index) for m in models]
    parts += [p for p in answered if p.model not in set(models)]
    return Folded(tuple(parts), tuple(answered), kinds, tuple(categories), settings)
