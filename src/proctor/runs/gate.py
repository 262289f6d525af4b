"""A stored run checked against requirements, in one place: `proctor gate`, the gate a suite run
carries (`proctor run --suite`, `proctor report`, `proctor score`) and `proctor.testing`.

    stored grades (+ judge verdicts, + a baseline run) ──► stats.gates (the arithmetic) ──► Gate

A run that was not all asked, or whose calls failed, is never passed (nor merely failed) by a
gate: its exit code is the state's (3 or 4), decided by `proctor.runs.state.state_exit`, which
also turns a failed check into exit 1. Nothing is written and no model is called.

A turn run (dialogue, workflow) is gated on what it has: its outcome (the exit code its own
command gives it) and, named by a requirement, the numeric metrics of its stored grade
("consistency>=0.8", "contradictions<=0", "score>=80", "tool_calls<=5").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.datasets.suites.config import load_config
from proctor.errors import ConfigError
from proctor.runs.grade import model_items
from proctor.runs.report import SUITE_KEY, describe_version, judge_scores, turn_scores
from proctor.runs.state import (
    EXIT_CHECK_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    state_exit,
    state_lines,
)
from proctor.runs.stored import open_existing
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.completeness import Completeness as Completeness
from proctor.stats.completeness import ModelCompleteness, completeness
from proctor.stats.evidence import RULES, Rule
from proctor.stats.gates import (
    OPS,
    GateRow,
    JudgeKappa,
    JudgeScores,
    Requirement,
    gate_rows,
    model_rows,
    not_worse_than,
    parse_requirement,
)
from proctor.stats.margin import parse_points
from proctor.stats.run_statistics import GateReport as GateReport
from proctor.stats.truncation import THRESHOLD as TRUNCATION_THRESHOLD
from proctor.stats.turn_scores import TurnScores
from proctor.store import RunStore
from proctor.store.run_store import Judgement
from proctor.types import GradedItem

if TYPE_CHECKING:
    from proctor.runs.turns import TurnKind

_JUDGE_METRICS = ("judge_mean", "judge_unscored")
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class GateAsk:
    """What to check: `requirements` (else those of `config`'s [gate], else the [gate] the
    suite's config had when the run began), and with `baseline`, not significantly worse than
    that run; `model` and `judge` narrow what is read."""

    requirements: tuple[str, ...] = ()
    baseline: str | None = None
    model: str | None = None
    judge: str | None = None
    config: Path | None = None
    alpha: float | None = None
    rule: Rule | None = None
    """Decide every requirement by this rule (else each its own: the interval's bound)."""
    margin: float | None = None
    """With `baseline`: require B within this margin of it (a share), not merely "not
    significantly worse" (`proctor.stats.margin`)."""
    allow_inconclusive: bool = False
    """Exit 0, not 7, when the only open checks are inconclusive (the lines still say so)."""
    strict: bool = False
    """Also require each model's share of cut-off replies at most the warning threshold
    (`proctor.stats.truncation`), on its point estimate."""


@dataclass(frozen=True)
class Gate:
    """A gate's verdict on a stored run: its rows, the run's state, and the exit code."""

    run_id: str
    rows: tuple[GateRow, ...]
    problems: tuple[str, ...]
    """What keeps the run from being a success (`state_lines`): one line per model and problem."""
    code: int
    line: str | None
    """Why the exit code is not 0, and the command that finishes the run, when it is not."""
    warnings: tuple[str, ...] = ()

    @property
    def failed(self) -> int:
        return sum(not r.passed for r in self.rows)


def only_judge(judgements: Sequence[Judgement], judge: str | None) -> str | None:
    """The judge to read: the one named, or the only one the run has; ConfigError if several."""
    judges = sorted({j.judge for j in judgements})
    if judge is not None:
        if judge not in judges:
            raise ConfigError(f"no verdicts of judge {judge!r} (this run has: {judges or 'none'})")
        return judge
    if len(judges) > 1:
        raise ConfigError(
            f"this run has several judges ({', '.join(judges)}): name one with --judge"
        )
    return judges[0] if judges else None


def suite_info(config: Mapping[str, object]) -> Mapping[str, object]:
    """The suite a run was asked from, as its config keeps it (empty for other runs)."""
    value = config.get(SUITE_KEY)
    return value if isinstance(value, dict) else {}


def read_rule(text: str | None) -> Rule | None:
    """`--rule` as typed: bound, point, or None (each requirement by its own); ConfigError on
    anything else."""
    if text is None:
        return None
    if text not in RULES:
        raise ConfigError(f"--rule is bound or point, got {text!r}")
    return "point" if text == "point" else "bound"


def read_margin(text: str | None, what: str = "--margin") -> float | None:
    """`--margin` (or the option `what`) as typed ("1pp"), as a share; None when not given;
    ConfigError naming `what` when it is not a number of points."""
    return None if text is None else parse_points(text, what)


def gate_in(results_dir: Path, run_ref: str, ask: GateAsk) -> Gate:
    """`gate_stored_run` in the run store of `results_dir` (ConfigError when it has none)."""
    with open_existing(results_dir) as store:
        return gate_stored_run(store, run_ref, ask)


def gate_stored_run(store: RunStore, run_ref: str, ask: GateAsk) -> Gate:
    """Check the stored run `run_ref` as `ask` says; ConfigError when there is nothing to check
    or a name is wrong."""
    run_id = store.resolve(run_ref)
    info = store.run_info(run_id)
    config = store.run_config(run_id)
    texts, stored_alpha = _requirements(ask, suite_info(config))
    models = _models(info.models, ask.model)
    kind = turn_kind(info.task)
    if kind is not None:
        if ask.baseline is not None:
            raise ConfigError(f"--baseline compares answers; {info.task} run {run_id} has turns")
        return _gate_turns(run_id, texts, turn_scores(store, run_id), models, kind)
    if not texts and ask.baseline is None and not ask.strict:
        raise ConfigError(
            "nothing to check: give --require or --baseline, or set [gate] require in the "
            "suite's config"
        )
    if ask.strict:
        texts = [*texts, f"rule=point:truncated<={TRUNCATION_THRESHOLD:g}"]
    requirements = [parse_requirement(t) for t in texts]
    epochs = config.get("epochs", 1)
    scores = None
    if any(r.metric in _JUDGE_METRICS for r in requirements):
        judgements = [j for j in store.judgements(run_id) if j.ordering == "single"]
        scores = judge_scores(judgements, only_judge(judgements, ask.judge))
    kappa = None
    if any(r.metric == "judge_kappa" for r in requirements):
        kappa = _judge_kappa(store.run_dir(run_id), ask.judge)
    check = _Check(requirements, scores or {}, kappa, ask.rule)
    warnings: list[str] = []
    base: _Baseline | None = None
    if ask.baseline is not None:
        base_id = store.resolve(ask.baseline)
        base_info = store.run_info(base_id)
        ours, theirs = suite_info(config), suite_info(store.run_config(base_id))
        if ours.get("content_hash") != theirs.get("content_hash"):
            warnings.append(
                "the two runs used different suite versions: "
                f"{describe_version(ours)} vs {describe_version(theirs)}"
            )
        elif info.dataset_hash != base_info.dataset_hash:
            warnings.append(
                "the two runs asked different cases "
                f"({info.dataset_hash} vs {base_info.dataset_hash}); compared on the common ones"
            )
        alpha = ask.alpha if ask.alpha is not None else stored_alpha
        base = _Baseline(base_id, base_info.models, alpha, ask.margin)
    expected = info.dataset_size * (epochs if isinstance(epochs, int) else 1)
    state, rows = _model_by_model(store, run_id, models, expected, check, base)
    return gate_of(run_id, rows, state, tuple(warnings), ask.allow_inconclusive)


@dataclass(frozen=True)
class _Check:
    requirements: Sequence[Requirement]
    judge: JudgeScores
    kappa: JudgeKappa | None
    rule: Rule | None

    def rows(self, model: str, mine: Sequence[GradedItem]) -> dict[int, GateRow]:
        return model_rows(self.requirements, model, mine, self.judge, self.kappa, self.rule)


@dataclass(frozen=True)
class _Baseline:
    run_id: str
    models: Sequence[str]
    alpha: float
    margin: float | None


def _model_by_model(
    store: RunStore,
    run_id: str,
    models: Sequence[str],
    expected: int,
    check: _Check,
    base: _Baseline | None,
) -> tuple[Completeness, list[GateRow]]:
    """The run's state and its rows (each requirement's, then the baseline's), made from one
    model's answers at a time, read from the store and dropped before the next model's (and
    the baseline's model of the same name, read alike): never every answer of a run at once."""
    if base is not None:
        theirs = {m: baseline_model(m, base.models, base.run_id) for m in models}
    states: list[ModelCompleteness] = []
    answered: dict[str, dict[int, GateRow]] = {}
    against: list[GateRow] = []
    for model in models:
        mine = model_items(store, run_id, model)
        states.append(completeness(mine, [model], expected).models[0])
        answered[model] = check.rows(model, mine)
        if base is not None:
            against.append(
                not_worse_than(
                    mine, model_items(store, base.run_id, theirs[model]), label=base.run_id,
                    model=model, alpha=base.alpha, margin=base.margin,
                )
            )  # fmt: skip
    rows = gate_rows(check.requirements, models, answered, lambda m: check.rows(m, []))
    return Completeness(tuple(states)), rows + against


def gate_of(
    run_id: str,
    rows: Sequence[GateRow],
    state: Completeness,
    warnings: tuple[str, ...] = (),
    allow_inconclusive: bool = False,
) -> Gate:
    """The verdict on rows already checked: the state's exit code first, then the checks'
    (inconclusive ones exit 7, or 0 when allowed, and the line says so)."""
    code, line = state_exit(run_id, state, gate=GateReport(tuple(rows)))
    if code == EXIT_INCONCLUSIVE and allow_inconclusive:
        undecided = sum(r.inconclusive for r in rows)
        code, line = EXIT_OK, (
            f"[yellow]gate passed with {undecided} inconclusive check(s)[/] "
            "(--allow-inconclusive): they were not shown to hold"
        )
    return Gate(run_id, tuple(rows), tuple(state_lines(run_id, state)), code, line, warnings)


def baseline_rows(
    items: Sequence[GradedItem],
    base_items: Sequence[GradedItem],
    models: Sequence[str],
    base_models: Sequence[str],
    *,
    label: str,
    alpha: float = DEFAULT_ALPHA,
    margin: float | None = None,
) -> list[GateRow]:
    """One row per model: not significantly worse than the baseline's model of the same name
    (or its only model) on the items both scored; with `margin`, within it of the baseline."""
    rows = []
    for m in models:
        theirs = baseline_model(m, base_models, label)
        rows.append(
            not_worse_than(
                [i for i in items if i.record.model == m],
                [i for i in base_items if i.record.model == theirs],
                label=label,
                model=m,
                alpha=alpha,
                margin=margin,
            )
        )
    return rows


def baseline_model(model: str, base_models: Sequence[str], label: str) -> str:
    """The baseline's model a candidate model is compared with: the one of its name, or the
    baseline's only model; ConfigError when there is neither."""
    if model in base_models:
        return model
    if len(base_models) == 1:
        return base_models[0]
    raise ConfigError(
        f"baseline {label} has models {', '.join(base_models)}; none has the candidate's name"
    )


_TURN_REQUIREMENT = re.compile(
    r"\s*(?P<metric>[A-Za-z_ ]+?)\s*(?P<op>>=|<=|==|>|<)\s*(?P<value>[-+]?\d+(?:\.\d+)?)\s*\Z"
)


def _turn_metrics(scores: TurnScores) -> dict[str, float | None]:
    """The metrics of a turn run's grade by name ("stage mean" → stage_mean): a number, or None
    where the grade says it could not be measured ("unscored", "—")."""
    out: dict[str, float | None] = {}
    for name, shown in scores.metrics:
        head = shown.split()[0] if shown.split() else ""
        try:
            value: float | None = float(head.split("/")[0])
        except ValueError:
            value = None
        out[name.strip().lower().replace(" ", "_")] = value
    return out


def _gate_turns(
    run_id: str,
    texts: Sequence[str],
    graded: Sequence[TurnScores],
    models: Sequence[str],
    kind: TurnKind,
) -> Gate:
    """A turn run's gate: its outcome, then each requirement on its grade's metrics."""
    by_model = {s.model: s for s in graded}
    rows: list[GateRow] = []
    code = EXIT_OK
    problems: list[str] = []
    for m in models:
        scores = by_model.get(m)
        if scores is None:
            problems.append(f"{m}: the run has no stored grade (`proctor score {run_id}`)")
            code = code or EXIT_INCOMPLETE
            continue
        outcome_code = kind.exit_code(scores.outcome)
        if outcome_code != EXIT_OK:
            why = f" ({scores.reason})" if scores.reason else ""
            problems.append(f"{m}: {scores.outcome}{why}")
            code = code or outcome_code
        metrics = _turn_metrics(scores)
        for text in texts:
            rows.append(_turn_row(text, m, metrics))
    failed = sum(not r.passed for r in rows)
    line = None
    if code != EXIT_OK:
        line = f"[red]run {run_id} did not end complete[/]: no gate passes it"
    elif failed:
        code = EXIT_CHECK_FAILED
        line = f"[red]gate failed:[/] {failed} of {len(rows)} checks"
    return Gate(run_id, tuple(rows), tuple(problems), code, line)


def _turn_row(text: str, model: str, metrics: Mapping[str, float | None]) -> GateRow:
    match = _TURN_REQUIREMENT.match(text)
    if match is None:
        raise ConfigError(f"bad requirement {text!r}: expected metric>=number, e.g. score>=80")
    metric = match.group("metric").strip().lower().replace(" ", "_")
    if metric not in metrics:
        raise ConfigError(
            f"unknown metric {metric!r} for this run: it has {', '.join(sorted(metrics))}"
        )
    value = metrics[metric]
    target = float(match.group("value"))
    if value is None:
        return GateRow(text, model, metric, None, 1, False, "not measured: a gate never passes it")
    return GateRow(text, model, metric, value, 1, OPS[match.group("op")](value, target))


def _judge_kappa(run_dir: Path, judge: str | None) -> JudgeKappa:
    """Kappa per model (and "" overall) from the run's judge_validation.json."""
    from proctor.audit.judge_validation import stored_kappa

    found = stored_kappa(run_dir, judge)
    if found is None:
        return {}
    out: dict[str, tuple[float | None, int, tuple[float, float] | None]] = {}

    def one(a: Mapping[str, Any]) -> tuple[float | None, int, tuple[float, float] | None]:
        low, high = a.get("kappa_low"), a.get("kappa_high")
        interval = (float(low), float(high)) if low is not None and high is not None else None
        return a.get("kappa"), int(a.get("n") or 0), interval

    out[""] = one(found.get("overall") or {})
    for model, a in (found.get("per_model") or {}).items():
        out[str(model)] = one(a)
    return out


def _requirements(ask: GateAsk, stored: Mapping[str, object]) -> tuple[list[str], float]:
    """The requirements to check and the baseline's alpha: the ones asked, else the [gate] of
    the config file asked, else the [gate] the suite's config had when the run began."""
    given = list(ask.requirements)
    if ask.config is not None:
        gate = load_config(ask.config).gate
        return (given or list(gate.require)), gate.alpha
    stored_gate = stored.get("gate")
    require: list[str] = []
    alpha = DEFAULT_ALPHA
    if isinstance(stored_gate, dict):
        req = stored_gate.get("require")
        if isinstance(req, list):
            require = [str(r) for r in req]
        a = stored_gate.get("alpha")
        if isinstance(a, int | float):
            alpha = float(a)
    return (given or require), alpha


def _models(models: Sequence[str], model: str | None) -> list[str]:
    if model is None:
        return list(models)
    if model not in models:
        raise ConfigError(f"model {model!r} is not in this run: {', '.join(models)}")
    return [model]
