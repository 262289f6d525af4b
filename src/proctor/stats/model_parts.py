"""A run's answers read one model at a time, each model's statistics made from its own answers
alone: how `build_statistics` reads a run of a million answers without holding them.

    answers (a list, or a stream in model order) ──► ModelTally.add, one answer at a time
                                                      ──► ModelTally.parts ──► ModelParts

Every per-model statistic of a report (accuracy and its cells, completeness, tokens and cost,
cut-off replies, the error taxonomy, per-item scores, the calculator's twin) depends on that
model's answers only and is counted as they are read (each statistic's own tally, which its
list-based function uses too), so a streamed model's answers are never held. What is made from
a model's list (repeated replies, a task's metrics and confidences, a suite's gate: the Extras;
`PartsSettings.holds_answers`) holds that one model's answers, dropped before the next model's
are read; so do intervals clustered by sample when a run without repeats has two scored replies
to one sample (read again from the stream). What pairs models (paired comparisons) keeps only
each model's per-item score, as compact arrays (`ItemScores`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Protocol, runtime_checkable

from proctor.stats import taxonomy
from proctor.stats.calibration import CalibrationSummary, CalibrationTally
from proctor.stats.completeness import CompletenessTally, ModelCompleteness
from proctor.stats.cost import LedgerTally, ModelLedger, PriceTable
from proctor.stats.gates import GateRow, JudgeScores, Requirement, gate_rows, model_rows
from proctor.stats.item_marks import ItemMarks, MarksTally
from proctor.stats.metrics import NOT_SCORED, MetricsTally, ModelMetrics
from proctor.stats.repeats import Estimate, RepeatMetrics, repeat_metrics
from proctor.stats.taxonomy import TaxonomyTally
from proctor.stats.tiers import Tier
from proctor.stats.truncation import CapHits, CapTally
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
        order = array("q", (index.of(sid) for sid in scores))
        self._set(index, order, zip(order, scores.values(), strict=True))

    @classmethod
    def counted(cls, tally: ScoresTally) -> ItemScores:
        """The scores a `ScoresTally` counted: as `item_scores` of the same answers gives."""
        made = cls.__new__(cls)
        right, n = tally.right, tally.n
        made._set(tally.index, tally.order, ((k, right[k] / n[k]) for k in tally.order))
        return made

    def _set(
        self, index: SampleIndex, order: array[int], values: Iterable[tuple[int, float]]
    ) -> None:
        self._index = index
        self._order = order
        self._values = array("d", [math.nan]) * len(index.ids)
        for n, value in values:
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


class ScoresTally:
    """`item_scores` of one model counted one answer at a time, by the shared index's numbers
    (`ItemScores.counted`): per sample met, its correct and scored replies."""

    def __init__(self, index: SampleIndex) -> None:
        self.index = index
        self.order = array("q")
        """The model's scored samples, in order of first appearance."""
        self.right = array("q")
        self.n = array("q")
        """By the index's number: the sample's correct and scored replies of this model."""

    def add(self, item: GradedItem) -> None:
        if item.score.outcome in NOT_SCORED:
            return
        k = self.index.of(item.sample.id)
        if k >= len(self.n):
            more = array("q", bytes(8 * (k + 1 - len(self.n))))
            self.n.extend(more)
            self.right.extend(more)
        if not self.n[k]:
            self.order.append(k)
        self.n[k] += 1
        self.right[k] += item.score.outcome == "correct"


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
    marks: ItemMarks
    """Each scored reply right or wrong, by sample and epoch (the leaderboard's cells)."""
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

    @property
    def holds_answers(self) -> bool:
        """Whether each model's answers are held while its parts are made: for what is made
        from its list (repeated replies, a task's metrics or confidences, a gate); else they
        are counted as they are read (`ModelTally`) and dropped."""
        x = self.extras
        return self.repeats or x.metrics is not None or x.confidence is not None or bool(x.gate)


def model_parts(
    model: str, items: Sequence[GradedItem], settings: PartsSettings, index: SampleIndex
) -> ModelParts:
    """The statistics of `model` from `items`, its answers (none: a model never answered)."""
    tally = ModelTally(model, settings, index)
    for item in items:
        tally.add(item)
    return tally.parts(lambda: items)


class ModelTally:
    """One model's parts counted one answer at a time, so that its answers need not be held:
    its metrics, completeness, ledger, cut-off replies, error classes, per-item scores and
    marks (and the calculator's twin, the same counts under the bare model's name). What a walk
    cannot count reads the answers again (`parts`' `again`): repeated replies and their stability,
    the Extras (a task's metrics and confidences, a gate: functions of the model's list), and
    the intervals clustered by sample when a sample has several scored replies."""

    def __init__(self, model: str, settings: PartsSettings, index: SampleIndex) -> None:
        self.model = model
        self.settings = settings
        self.metrics = MetricsTally()
        self.completeness = CompletenessTally()
        self.ledger = LedgerTally()
        self.cap = CapTally()
        self.taxonomy = TaxonomyTally()
        self.scores = ScoresTally(index)
        self.marks = MarksTally(index)

    def add(self, item: GradedItem) -> None:
        self.metrics.add(item)
        self.completeness.add(item)
        self.ledger.add(item)
        self.cap.add(item)
        self.taxonomy.add(item)
        self.scores.add(item)
        self.marks.add(item)

    def parts(self, again: Callable[[], Sequence[GradedItem]]) -> ModelParts:
        """The parts of the answers added; `again`: the same answers, as a list, asked for only
        for what is not counted (`holds_answers`, or several scored replies to a sample)."""
        s, model = self.settings, self.model
        answered = self.metrics.n_items > 0
        held: list[Sequence[GradedItem]] = []

        def items() -> Sequence[GradedItem]:  # read at most once
            if not held:
                held.append(again())
            return held[0]

        metrics = self.metrics.metrics(model, s.tiers, items)
        bare = s.bare_of.get(model)
        repeats, stability = None, {}
        if s.repeats and answered:
            repeats = repeat_metrics(items())[model]
            stability = _stability(model, items())
        x = s.extras
        return ModelParts(
            model=model,
            metrics=metrics,
            completeness=self.completeness.result(model, s.expected),
            ledger=self.ledger.result(model, s.prices),
            cap=self.cap.result(model, s.max_tokens),
            taxonomy=self.taxonomy.counts(),
            scores=ItemScores.counted(self.scores),
            marks=self.marks.marks(),
            repeats=repeats,
            stability=stability,
            calculator=replace(metrics, model=bare) if bare is not None else None,
            task_metrics=x.metrics(items()).get(model) if x.metrics is not None and answered
            else None,
            calibration=_calibration(x.confidence(items()).get(model)) if x.confidence else None,
            gate=model_rows(x.gate, model, items(), x.judge) if x.gate else {},
        )  # fmt: skip


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
    """Each model's parts, its answers counted as they are read (or held, `holds_answers`) and
    dropped before the next model's."""
    index = SampleIndex()
    kinds: dict[str, str] = {}
    categories: dict[str, None] = {}
    answered: list[ModelParts] = []
    for model, group, again in _walks(items, settings.holds_answers):
        tally = ModelTally(model, settings, index)
        for item in group:
            if item.sample.category:
                categories[item.sample.category] = None
            if judged:
                kinds[item.sample.id] = item.sample.category
            tally.add(item)
        answered.append(tally.parts(again))
        del group, again
    taxonomy.forget()
    found = {p.model: p for p in answered}
    parts = [found.get(m) or model_parts(m, [], settings, index) for m in models]
    parts += [p for p in answered if p.model not in set(models)]
    return Folded(tuple(parts), tuple(answered), kinds, tuple(categories), settings)


Walk = tuple[str, Iterable[GradedItem], Callable[[], Sequence[GradedItem]]]


def _walks(items: Items, hold: bool) -> Iterator[Walk]:
    """(model, its answers, its answers again as a list) in order of first appearance: held
    answers and `hold` as `by_model` groups them; a stream's otherwise one model's after the
    other as read, read again (`ItemStream.of_model`) only if a part asks for the list."""
    if hold or not isinstance(items, ItemStream):
        for model, group in by_model(items):
            yield model, group, _given(group)
            del group  # not held while the next model's answers are read
        return
    done: set[str] = set()
    for model, read in groupby(items, key=lambda item: item.record.model):
        if model in done:
            raise ValueError(f"answers of {model} are not together: the stream is not in "
                             "model order")  # fmt: skip
        done.add(model)
        yield model, read, _read_again(items, model)


def _given(group: list[GradedItem]) -> Callable[[], Sequence[GradedItem]]:
    return lambda: group


def _read_again(stream: ItemStream, model: str) -> Callable[[], Sequence[GradedItem]]:
    return lambda: list(stream.of_model(model))
