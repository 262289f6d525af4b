"""`RunStatistics`: everything a run's reports say, built once per run from its stored grades.

    stored grades, judge verdicts, run config ──► build_statistics ──► RunStatistics
                                                                        │
                  terminal · results.json · summary.md · report.html · viewer ◄┘ (pure renderers)

Every renderer is a pure function of one `RunStatistics`: no renderer computes a statistic, so
two files of one run never disagree. A part is None (or empty) when the run has no data for it,
and then no renderer shows its section: a run of one model has no paired comparisons, a task
with no tier scale no tiers, a run without repeated replies no pass@k.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from proctor.stats.calibration import CalibrationSummary, summarize_calibration
from proctor.stats.completeness import Completeness
from proctor.stats.cost import ModelLedger, PriceTable
from proctor.stats.gates import GateRow, JudgeScores, parse_requirement
from proctor.stats.human import HumanSummary, by_people
from proctor.stats.item_marks import ItemMarks
from proctor.stats.metrics import NOT_SCORED, Cell, ModelMetrics, RunMetrics, ranked, summarize
from proctor.stats.model_parts import (
    Extras,
    Folded,
    Items,
    ItemStream,
    ModelParts,
    PartsSettings,
    by_model,
    fold,
    max_epoch,
)
from proctor.stats.multiple import ranked_comparisons
from proctor.stats.paired import PairedComparison
from proctor.stats.repeats import Estimate, RepeatMetrics
from proctor.stats.reviews import GivenVerdict
from proctor.stats.size import SizeTrend, size_trend
from proctor.stats.tiers import Tier
from proctor.stats.truncation import CapHits
from proctor.stats.turn_scores import TurnScores
from proctor.types import GradedItem, RunInfo, Sample

SLICES: tuple[str, ...] = ("category", "difficulty")


@dataclass(frozen=True)
class TaskView:
    """What the reports need to know of the run's task, as data (never its name)."""

    name: str
    version: str = ""
    rules: Mapping[str, str] = field(default_factory=dict)
    tiers: tuple[Tier, ...] | None = None
    """The task's tier scale (the arithmetic seed's); None: the task has none."""
    grading_note: str = ""
    """How grading was done, in a line (the sandbox and its limits), or ""."""
    audit: str = ""
    """How the task's grader fared on its hand-labelled replies (`proctor audit`), or ""."""


@dataclass(frozen=True)
class Slice:
    """Accuracy by one field of the samples, for every model (ranking order)."""

    key: str
    """The field: "category" or "difficulty"."""
    values: tuple[str, ...]
    cells: Mapping[str, Mapping[str, Cell]]
    """model → value → its cell."""


@dataclass(frozen=True)
class JudgeVerdict:
    """One stored judge verdict, as read again from the judge's stored replies."""

    judge: str
    model: str
    """The judged model, or "A vs B" when pairwise."""
    sample_id: str
    epoch: int
    pairwise: bool
    score: int | None = None
    correctness: int | None = None
    completeness: int | None = None
    outcome: str | None = None
    """Pairwise: "a", "b", "tie" or "inconsistent" over both orders; None when unscored."""
    reason: str = ""
    """Why there is no verdict (a failed judge call, no valid reply)."""

    @property
    def scored(self) -> bool:
        return self.score is not None if not self.pairwise else self.outcome is not None


@dataclass(frozen=True)
class JudgeRow:
    model: str
    kind: str
    """"all", or one kind (category)."""
    judged: int
    mean_score: float | None
    mean_correctness: float | None
    mean_completeness: float | None
    unscored: int


@dataclass(frozen=True)
class PairwiseRow:
    pair: str
    a_wins: int
    b_wins: int
    ties: int
    inconsistent: int
    unscored: int


@dataclass(frozen=True)
class JudgeSummary:
    judge: str
    pointwise: tuple[JudgeRow, ...]
    pairwise: tuple[PairwiseRow, ...]
    unscored_reasons: tuple[str, ...]
    """"sample#epoch: why", the first few."""


@dataclass(frozen=True)
class ConsistencyRow:
    model: str
    overall: Estimate
    by_kind: Mapping[str, Estimate]


@dataclass(frozen=True)
class Consistency:
    """Share of items whose repeated replies all read the same, overall and per category."""

    kinds: tuple[str, ...]
    rows: tuple[ConsistencyRow, ...]


@dataclass(frozen=True)
class TaskMetricTable:
    """A task's own metrics beyond accuracy (e.g. lm-eval's filters), per model."""

    names: tuple[str, ...]
    values: Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class GateReport:
    """The requirements the run carries (a suite config's [gate]), checked on its grades."""

    rows: tuple[GateRow, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.rows)

    @property
    def inconclusive(self) -> int:
        """Checks with too little evidence either way (none failed when `passed` alone fails)."""
        return sum(r.inconclusive for r in self.rows)


@dataclass(frozen=True)
class RunStatistics:
    """Everything a run's reports say, built once (`build_statistics`); every part the run has
    no data for is None or empty."""

    info: RunInfo
    task: TaskView
    grader_version: str | None
    items: Sequence[GradedItem] | ItemStream
    """Every stored answer with its stored grade (samples.csv, the sample browser): held, or
    for a report of a big run a stream each renderer walks again (`ItemStream`)."""
    metrics: RunMetrics
    ranking: tuple[ModelMetrics, ...]
    """`metrics.models`, best first."""
    completeness: Completeness
    slices: tuple[Slice, ...]
    """Only slices with something in them: a paper with no categories has no category table."""
    paired: tuple[PairedComparison, ...]
    repeats: Mapping[str, RepeatMetrics]
    """Empty unless some item has several scored replies."""
    consistency: Consistency | None
    judges: tuple[JudgeSummary, ...]
    task_metrics: TaskMetricTable | None
    gate: GateReport | None
    calibration: Mapping[str, CalibrationSummary] | None
    calculator: RunMetrics | None
    """Metrics of the M+calculator models, named by their bare model."""
    taxonomy: Mapping[str, Mapping[str, int]]
    size: SizeTrend | None
    cost: tuple[ModelLedger, ...]
    """Tokens and money per model: spent, asked in batches, and saved by the response cache."""
    prompts: Callable[[Sample], str | None] | None = None
    """A sample's prompt as the run sent it, rebuilt when shown; None: not known."""
    suite: str = ""
    """The suite and its version, in words ("support-desk · sha256:… at git 1a2b…"), or ""."""
    turns: tuple[TurnScores, ...] = ()
    """A dialogue or workflow run's stored grade, one per model; empty for any other run."""
    human: HumanSummary | None = None
    """People's verdicts beside the rules' grades; None when nobody reviewed the run."""
    truncation: tuple[CapHits, ...] = ()
    """Per model, replies cut off by max_tokens and the accuracy bounds they leave; empty when
    no reply was cut off (`proctor.stats.truncation`)."""
    prompt_files: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """The run's prompt files by the key its variants name (`concise.txt@1a2b3c4d`): file
    name, full sha256, path and the variant that grades them; empty when none."""
    marks: Mapping[str, ItemMarks] = field(default_factory=dict)
    """Per model (the run's models, then others), each scored reply right or wrong by sample
    and epoch: what the leaderboard's cells keep of each item (`proctor.runs.board_cells`)."""
    store_version: int | None = None
    """The store's data version when the answers were read (SQLite's `data_version`); None:
    not read from a store. The cells made from these statistics are stored only while no
    other writer has changed the store since (`proctor.store.board_cells.made`)."""

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(m.model for m in self.ranking)

    @property
    def has_answers(self) -> bool:
        """False for a dialogue or workflow run: its turns are graded as a whole (`turns`), so
        it has no ranking, outcomes or answer tokens to show."""
        return bool(self.items) or not self.turns

    @property
    def pass_ks(self) -> tuple[int, ...]:
        return tuple(sorted({k for r in self.repeats.values() for k in r.pass_at}))


def build_statistics(
    info: RunInfo,
    items: Items,
    task: TaskView,
    *,
    grader_version: str | None = None,
    expected_per_model: int | None = None,
    prompts: Callable[[Sample], str | None] | None = None,
    judge_verdicts: Sequence[JudgeVerdict] = (),
    gate_requirements: Sequence[str] = (),
    confidence_pairs: Mapping[str, Sequence[tuple[float, bool]]] | None = None,
    calculator_pairs: Sequence[tuple[str, str]] = (),
    prices: PriceTable | None = None,
    sizes: Mapping[str, float] | None = None,
    suite: str = "",
    turns: Sequence[TurnScores] = (),
    human_verdicts: Sequence[GivenVerdict] = (),
    grade_by_human: Sequence[str] = (),
    extras: Extras | None = None,
) -> RunStatistics:
    """Every statistic of a run, once. `items`: its answers, held or streamed (`ItemStream`:
    walked one model at a time, never all held; `model_parts`). `calculator_pairs`: (bare,
    with calculator) model strings both asked; `gate_requirements`: the run's own requirements
    (a suite's [gate]).
    Why so many parameters: each keyword is one optional part of a run's statistics, absent by
    default, that only some runs have (a judge, a suite's gate, confidences, prices, turns,
    people's verdicts); its one builder (`runs.report.run_statistics`) and the tests name only
    the parts they give, which a parameters object would only wrap. `grade_by_human`: the kinds
    counted by people's verdicts where they exist. `extras`: the task's own metrics and
    confidences, each made from one model's answers at a time as the answers are read (so a
    stream covers them); `confidence_pairs`: confidences given already made, per model (a
    report test's own), instead of the task's."""
    items, human = by_people(items, human_verdicts, grade_by_human)
    top_epoch = max_epoch(items)
    expected = expected_per_model
    if expected is None:
        expected = info.dataset_size * max(1, 1 + top_epoch)
    judge_scores = _judge_scores(judge_verdicts)
    gate = [parse_requirement(r) for r in gate_requirements]
    settings = PartsSettings(
        tiers=task.tiers, expected=expected, prices=prices or PriceTable({}),
        max_tokens=info.params.max_tokens, repeats=top_epoch > 0,
        bare_of={calc: bare for bare, calc in calculator_pairs},
        extras=replace(extras or Extras(), gate=gate, judge=judge_scores),
    )  # fmt: skip
    folded = fold(items, info.models, settings, judged=bool(judge_verdicts))
    metrics = RunMetrics(tuple(p.metrics for p in folded.parts))
    rows = ranked(metrics)
    names = [m.model for m in rows]
    scored_names = [m.model for m in rows if m.accuracy is not None]
    paired: tuple[PairedComparison, ...] = ()
    if len(scored_names) >= 2:
        scores = {p.model: p.scores for p in folded.answered}
        paired = tuple(ranked_comparisons(scores, scored_names, pairs="adjacent"))
    repeats = _repeats(folded.answered)
    sizes_trend = size_trend(rows, sizes)
    truncation = tuple({p.model: p.cap for p in folded.parts}[n] for n in names)
    return RunStatistics(
        info=info,
        task=task,
        grader_version=grader_version,
        items=items if isinstance(items, ItemStream) else tuple(items),
        metrics=metrics,
        ranking=tuple(rows),
        completeness=Completeness(tuple(p.completeness for p in folded.parts)),
        slices=_slices(rows),
        paired=paired,
        repeats=repeats,
        consistency=_consistency(folded, names) if repeats else None,
        judges=_judges(judge_verdicts, folded.kinds),
        task_metrics=_task_metrics(folded.task_metrics()),
        gate=GateReport(folded.gate_rows(info.models)) if gate else None,
        calibration=_calibration(confidence_pairs)
        if confidence_pairs is not None
        else folded.calibration(),
        calculator=_calculator(folded, calculator_pairs, settings),
        taxonomy={p.model: dict(p.taxonomy) for p in folded.answered},
        truncation=truncation if any(r.capped for r in truncation) else (),
        size=sizes_trend if len({p.parameters for p in sizes_trend.points}) >= 2 else None,
        cost=tuple(p.ledger for p in folded.parts),
        prompts=prompts,
        suite=suite,
        turns=tuple(turns),
        human=human,
        marks={p.model: p.marks for p in folded.parts},
    )


def _slices(rows: Sequence[ModelMetrics]) -> tuple[Slice, ...]:
    out: list[Slice] = []
    for key in SLICES:
        by_model = {
            m.model: (m.by_category if key == "category" else m.by_difficulty) for m in rows
        }
        values = list(dict.fromkeys(v for cells in by_model.values() for v in cells))
        if not values or values == [""]:
            continue  # nothing to slice by: no "(none)" table
        out.append(Slice(key, tuple(values), by_model))
    return tuple(out)


def _repeats(answered: Sequence[ModelParts]) -> Mapping[str, RepeatMetrics]:
    repeats = {p.model: p.repeats for p in answered if p.repeats is not None}
    if not any(r.replies_per_item > 1 for r in repeats.values()):
        return {}
    return repeats


def _consistency(folded: Folded, models: Sequence[str]) -> Consistency:
    found = {p.model: p.stability for p in folded.answered}
    rows = [
        ConsistencyRow(
            model, found[model][""], {k: found[model][k] for k in folded.categories
                                      if k in found[model]}
        )
        for model in models
        if model in found
    ]  # fmt: skip
    return Consistency(folded.categories, tuple(rows))


def _judge_scores(verdicts: Sequence[JudgeVerdict]) -> JudgeScores:
    judges = sorted({v.judge for v in verdicts if not v.pairwise})
    if len(judges) != 1:  # judge_mean needs one judge; several: `proctor gate --judge J`
        return {}
    return {
        (v.model, v.sample_id, v.epoch): None if v.score is None else float(v.score)
        for v in verdicts
        if not v.pairwise
    }


def _mean(values: Sequence[int]) -> float | None:
    return sum(values) / len(values) if values else None


def _judges(
    verdicts: Sequence[JudgeVerdict], kind_of: Mapping[str, str]
) -> tuple[JudgeSummary, ...]:
    if not verdicts:
        return ()
    out: list[JudgeSummary] = []
    for judge in sorted({v.judge for v in verdicts}):
        mine = [v for v in verdicts if v.judge == judge]
        groups: dict[tuple[str, str], list[JudgeVerdict]] = {}
        for v in mine:
            if v.pairwise:
                continue
            groups.setdefault((v.model, "all"), []).append(v)
            kind = kind_of.get(v.sample_id, "")
            if kind:
                groups.setdefault((v.model, kind), []).append(v)
        pointwise = tuple(
            JudgeRow(
                model=model,
                kind=kind,
                judged=len(group),
                mean_score=_mean([v.score for v in group if v.score is not None]),
                mean_correctness=_mean([v.correctness for v in group if v.correctness is not None]),
                mean_completeness=_mean(
                    [v.completeness for v in group if v.completeness is not None]
                ),
                unscored=sum(not v.scored for v in group),
            )
            for (model, kind), group in groups.items()
        )
        tally: dict[str, dict[str, int]] = {}
        for v in mine:
            if not v.pairwise:
                continue
            counts = tally.setdefault(v.model, dict.fromkeys(("a", "b", "tie", "inconsistent"), 0))
            if v.outcome is None:
                counts["unscored"] = counts.get("unscored", 0) + 1
            else:
                counts[v.outcome] += 1
        pairwise = tuple(
            PairwiseRow(name, c["a"], c["b"], c["tie"], c["inconsistent"], c.get("unscored", 0))
            for name, c in tally.items()
        )
        reasons = tuple(f"{v.sample_id}#{v.epoch}: {v.reason}" for v in mine if not v.scored)
        out.append(JudgeSummary(judge, pointwise, pairwise, reasons))
    return tuple(out)


def _task_metrics(values: Mapping[str, Mapping[str, float]] | None) -> TaskMetricTable | None:
    if not values:
        return None
    names = tuple(sorted({name for per_model in values.values() for name in per_model}))
    if not names:
        return None
    return TaskMetricTable(names, values)


def _calibration(
    pairs: Mapping[str, Sequence[tuple[float, bool]]] | None, bins: int = 10
) -> Mapping[str, CalibrationSummary] | None:
    if pairs is None:
        return None
    summaries = {
        model: summarize_calibration([c for c, _ in got], [ok for _, ok in got], bins)
        for model, got in pairs.items()
        if got
    }
    return summaries or None


def _calculator(
    folded: Folded, pairs: Sequence[tuple[str, str]], settings: PartsSettings
) -> RunMetrics | None:
    if not pairs:
        return None
    found = {p.model: p.calculator for p in folded.parts}
    return RunMetrics(
        tuple(
            found.get(calc) or summarize([], [bare], tiers=settings.tiers).models[0]
            for bare, calc in pairs
        )
    )


def failures(stats: RunStatistics, per_model: int) -> Mapping[str, tuple[GradedItem, ...]]:
    """Up to `per_model` answers per model that counted against it, in item order (the models
    that have one). Each model's answers are read only as far as it takes (a stream's too)."""
    items = stats.items
    walks: Iterator[tuple[str, Iterator[GradedItem]]]
    if isinstance(items, ItemStream):
        walks = ((model, items.of_model(model)) for model in items.models)
    else:
        walks = ((model, iter(group)) for model, group in by_model(items))
    found: dict[str, tuple[GradedItem, ...]] = {}
    for model, walk in walks:
        try:
            kept = _against(walk, per_model)
        finally:  # a stream's store is let go now, not when the walk is collected
            getattr(walk, "close", lambda: None)()
        if kept is not None:
            found[model] = kept
    return found


def _against(answers: Iterator[GradedItem], most: int) -> tuple[GradedItem, ...] | None:
    """The first `most` answers that counted against their model; None when none did."""
    kept: list[GradedItem] = []
    seen = False
    for item in answers:
        if item.score.outcome in NOT_SCORED or item.score.outcome == "correct":
            continue
        seen = True
        if len(kept) >= most:
            break
        kept.append(item)
    return tuple(kept) if seen else None
