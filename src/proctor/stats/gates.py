"""Quality gates: requirements such as "accuracy>=0.9" or "kind=extraction:accuracy>=0.95",
checked against a run's graded items; pure, so CI can gate on a stored run without a model.

Syntax: `[KEY=VALUE[,KEY=VALUE…]:]METRIC OP NUMBER` with OP one of >= <= > < == and NUMBER a
share (0.9), a percentage (90%) or a count. Filter keys: kind (a suite case's kind, else the
category), category, difficulty, model, id, or any key of the samples' metadata. Without a
model filter a requirement is checked for every model of the run, and each must pass.

A requirement that cannot be measured (no scored reply in its slice, no repeated replies for
consistency, no judge verdict for judge_mean) fails, and says why: a gate never passes on
nothing.

A requirement holds when its interval's bound clears the threshold, not its point estimate; too
little evidence is INCONCLUSIVE, with the items that would decide it (`proctor.stats.evidence`).
The point-estimate rule stays available by name: `rule=point:accuracy>=0.9` (or for every
requirement, `evaluate(rule="point")`), and its rows say so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from proctor.errors import ConfigError
from proctor.stats.evidence import OPS as OPS  # the operators' one home; read from here too
from proctor.stats.evidence import (
    RULES,
    Bounds,
    Result,
    Rule,
    count_bounds,
    decide,
    items_to_decide,
    mean_bounds,
    share_bounds,
)
from proctor.stats.margin import decide_margin
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.paired import PairedTest, compare_paired
from proctor.stats.repeats import repeat_metrics
from proctor.stats.scores import item_scores
from proctor.stats.truncation import cut_off
from proctor.types import GradedItem

JudgeKappa = Mapping[str, tuple[float | None, int, tuple[float, float] | None]]
"""Model → (the judge's kappa against human verdicts on its answers, labelled answers compared,
the kappa's interval when the validation has one); "" holds the overall figure (a pairwise
validation has only that)."""

JudgeScores = Mapping[tuple[str, str, int], float | None]
"""(model, sample id, epoch) → the judge's score (1–10), or None when the judge left it
unscored; a reply that was not judged is absent."""

METRICS: dict[str, str] = {
    "accuracy": "share of scored replies graded correct",
    "consistency": "share of cases whose repeated replies all read the same (needs --samples 2+)",
    "judge_mean": "mean judge score (1-10) over the replies the judge scored",
    "judge_unscored": "share of judged replies the judge left unscored",
    "judge_kappa": "Cohen's kappa of the judge against human verdicts (proctor judge --against)",
    "format": "share of scored replies in the requested format (valid JSON for extraction)",
    "failed": "share of replies whose call failed",
    "truncated": "share of scored replies cut off by max_tokens",
    "n": "number of scored replies",
}

_TAIL = re.compile(
    r"(?P<metric>[A-Za-z_]+)\s*(?P<op>>=|<=|==|>|<)\s*(?P<value>[-+]?\d+(?:\.\d+)?)\s*(?P<pct>%)?\s*\Z"
)


@dataclass(frozen=True)
class Requirement:
    text: str
    filters: tuple[tuple[str, str], ...]
    metric: str
    op: str
    threshold: float
    rule: Rule = "bound"
    """How the requirement is decided: the interval's bound, or (named) the point estimate."""


@dataclass(frozen=True)
class GateRow:
    """One requirement checked for one model (or the baseline comparison)."""

    requirement: str
    model: str
    metric: str
    """A key of METRICS, or "baseline" (value: the difference in accuracy, a share)."""
    value: float | None
    n: int
    passed: bool
    note: str = ""
    low: float | None = None
    """The value's interval, when it has one."""
    high: float | None = None
    inconclusive: bool = False
    """Too little evidence either way (then `passed` is False, and the row is not a failure)."""
    needed: int | None = None
    """When inconclusive: the items that would decide it if the observed value held."""
    rule: str = "bound"

    @property
    def result(self) -> str:
        """"pass", "FAIL" or "INCONCLUSIVE", as every output shows it."""
        return "pass" if self.passed else "INCONCLUSIVE" if self.inconclusive else "FAIL"


def parse_requirement(text: str) -> Requirement:
    """A requirement from its text; ConfigError naming what is wrong (unknown metric, bad
    operator, bad filter)."""
    stripped = text.strip()
    match = _TAIL.search(stripped)
    if match is None:
        raise ConfigError(
            f"bad requirement {text!r}: expected [key=value:]metric>=number, "
            'e.g. "accuracy>=0.9" or "kind=extraction:accuracy>=0.95"'
        )
    metric = match.group("metric").lower()
    if metric not in METRICS:
        known = ", ".join(METRICS)
        raise ConfigError(f"unknown metric {metric!r} in {text!r}: known metrics are {known}")
    prefix = stripped[: match.start()].strip()
    filters: list[tuple[str, str]] = []
    if prefix:
        if not prefix.endswith(":"):
            raise ConfigError(f"bad requirement {text!r}: put filters before a ':'")
        for part in prefix[:-1].split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ConfigError(f"bad filter {part.strip()!r} in {text!r}: expected key=value")
            filters.append((key.strip(), value.strip()))
    rules = [v for k, v in filters if k == "rule"]
    if any(r not in RULES for r in rules) or len(rules) > 1:
        raise ConfigError(f"bad rule in {text!r}: rule=bound (the default) or rule=point")
    threshold = float(match.group("value"))
    if match.group("pct"):
        threshold /= 100.0
    kept = tuple(f for f in filters if f[0] != "rule")
    rule: Rule = "point" if rules == ["point"] else "bound"
    return Requirement(stripped, kept, metric, match.group("op"), threshold, rule)


def _field(item: GradedItem, key: str) -> str | None:
    sample = item.sample
    if key == "kind":
        return sample.metadata.get("kind") or sample.category
    if key == "model":
        return item.record.model
    if key == "id":
        return sample.id
    if key in ("category", "difficulty"):
        return str(getattr(sample, key))
    return sample.metadata.get(key)


def _selected(items: Sequence[GradedItem], filters: Sequence[tuple[str, str]]) -> list[GradedItem]:
    return [i for i in items if all(_field(i, k) == v for k, v in filters)]


@dataclass(frozen=True)
class Measured:
    value: float | None
    """None when the metric cannot be measured on these items (`note` says why)."""
    n: int
    note: str = ""
    bounds: Bounds | None = None


def measure(metric: str, items: Sequence[GradedItem], judge: JudgeScores) -> Measured:
    """`metric` over `items` (one model's), with its interval when it has one."""
    scored = [i for i in items if i.score.outcome not in NOT_SCORED]
    if metric in ("accuracy", "format"):
        if not scored:
            return Measured(None, 0, "no scored reply")
        hits = [i.score.outcome == "correct" if metric == "accuracy" else i.score.format_ok
                for i in scored]  # fmt: skip
        bounds = share_bounds(hits, [i.sample.id for i in scored])
        return Measured(sum(hits) / len(hits), len(hits), "", bounds)
    if metric == "n":
        return Measured(float(len(scored)), len(scored))
    if metric == "truncated":
        if not scored:
            return Measured(None, 0, "no scored reply")
        cut = [cut_off(i) for i in scored]
        bounds = share_bounds(cut, [i.sample.id for i in scored])
        return Measured(sum(cut) / len(cut), len(cut), "", bounds)
    if metric == "failed":
        if not items:
            return Measured(None, 0, "no reply")
        failed = [i.score.outcome == "call_failed" for i in items]
        bounds = share_bounds(failed, [i.sample.id for i in items])
        return Measured(sum(failed) / len(failed), len(failed), "", bounds)
    if metric == "consistency":
        stability = [m.stability for m in repeat_metrics(items, ks=()).values()]
        if not stability or stability[0].value is None:
            return Measured(None, 0, "no case has 2+ scored replies: run with --samples 5")
        value, n = stability[0].value, stability[0].n
        return Measured(value, n, "cases", count_bounds(round(value * n), n))
    verdicts = [
        judge[key] for i in items if (key := (i.record.model, i.sample.id, i.record.epoch)) in judge
    ]
    if not verdicts:
        return Measured(None, 0, "no judge verdict: run proctor judge RUN --judge MODEL")
    if metric == "judge_unscored":
        missing = sum(v is None for v in verdicts)
        n = len(verdicts)
        return Measured(missing / n, n, "", count_bounds(missing, n))
    values = [v for v in verdicts if v is not None]
    if not values:
        return Measured(None, len(verdicts), "the judge scored none of the judged replies")
    return Measured(sum(values) / len(values), len(values), "", mean_bounds(values))


def evaluate(
    requirements: Sequence[Requirement],
    items: Sequence[GradedItem],
    models: Sequence[str],
    judge: JudgeScores | None = None,
    kappa: JudgeKappa | None = None,
    rule: Rule | None = None,
) -> list[GateRow]:
    """One row per requirement and model (the model named by a model filter, else each);
    `rule` decides every requirement that way (else each its own, "bound" by default)."""
    by_model: dict[str, list[GradedItem]] = {}
    for i in items:
        by_model.setdefault(i.record.model, []).append(i)
    return gate_rows(
        requirements,
        models,
        {m: model_rows(requirements, m, mine, judge, kappa, rule) for m, mine in by_model.items()},
        lambda m: model_rows(requirements, m, [], judge, kappa, rule),
    )


def model_rows(
    requirements: Sequence[Requirement],
    model: str,
    mine: Sequence[GradedItem],
    judge: JudgeScores | None = None,
    kappa: JudgeKappa | None = None,
    rule: Rule | None = None,
) -> dict[int, GateRow]:
    """`model`'s row of each requirement that is checked for it (one naming it, or naming no
    model), by the requirement's position, from its answers `mine` alone: every metric of a
    gate is one model's, so a run's answers can be read one model at a time."""
    rows: dict[int, GateRow] = {}
    for k, req in enumerate(requirements):
        named = [v for key, v in req.filters if key == "model"]
        if named and model not in named:
            continue
        if req.metric == "judge_kappa":
            measured = _kappa_of(kappa or {}, model)
        else:
            measured = measure(req.metric, _selected(mine, req.filters), judge or {})
        rows[k] = _row(req, model, measured, rule or req.rule)
    return rows


def gate_rows(
    requirements: Sequence[Requirement],
    models: Sequence[str],
    answered: Mapping[str, Mapping[int, GateRow]],
    unanswered: Callable[[str], Mapping[int, GateRow]],
) -> list[GateRow]:
    """The rows in their order (by requirement, then model: the one a model filter names,
    else each of `models`), taken from each model's `model_rows`: `answered`'s, or for a
    model without answers `unanswered(model)`."""
    rows: list[GateRow] = []
    for k, req in enumerate(requirements):
        named = [v for key, v in req.filters if key == "model"]
        for model in named or list(models):
            found = answered[model] if model in answered else unanswered(model)
            rows.append(found[k])
    return rows


def _row(req: Requirement, model: str, measured: Measured, rule: Rule) -> GateRow:
    """The requirement decided on what was measured (`proctor.stats.evidence`)."""
    value, bounds = measured.value, measured.bounds
    if value is None:
        return GateRow(req.text, model, req.metric, None, measured.n, False, measured.note)
    result: Result = decide(req.op, value, bounds, req.threshold, rule)
    notes = [measured.note] if measured.note else []
    if bounds is None and rule == "bound" and req.metric != "n" and req.op != "==":
        result = "inconclusive"  # a value with no interval is no evidence (one judge score)
    needed = None
    if rule == "point":
        notes.append("point-estimate rule: the interval was not consulted")
    elif result == "inconclusive" and bounds is None:
        notes.append("no interval to decide it by: more items are needed")
    elif result == "inconclusive" and bounds is not None:
        needed = items_to_decide(value, bounds, req.threshold)
        notes.append(
            f"the interval {_span(req.metric, bounds)} straddles the threshold: "
            + (
                f"about {needed:,} items would decide it"
                if needed is not None
                else "more items at this value do not decide it"
            )
        )
    low, high = (bounds.low, bounds.high) if bounds is not None else (None, None)
    return GateRow(
        req.text, model, req.metric, value, measured.n, result == "pass", "; ".join(notes),
        low, high, result == "inconclusive", needed, rule,
    )  # fmt: skip


def _span(metric: str, bounds: Bounds) -> str:
    if metric in ("judge_mean", "judge_kappa"):
        return f"{bounds.low:.2f}–{bounds.high:.2f}"
    return f"{bounds.low * 100:.1f}–{bounds.high * 100:.1f} %"


def _kappa_of(kappa: JudgeKappa, model: str) -> Measured:
    found = kappa.get(model) or kappa.get("")
    if found is None:
        return Measured(
            None, 0, "no judge validation: run proctor judge RUN --judge M --against LABELS.csv"
        )
    value, n, interval = found
    if value is None:
        return Measured(None, n, "kappa is undefined (one label on both sides)")
    if interval is None:
        return Measured(value, n, "no kappa interval stored: too few labels to bound it")
    return Measured(value, n, "", Bounds(interval[0], interval[1], "given"))


def not_worse_than(
    candidate: Sequence[GradedItem],
    baseline: Sequence[GradedItem],
    *,
    label: str,
    model: str,
    alpha: float = 0.05,
    seed: int = 0,
    margin: float | None = None,
) -> GateRow:
    """Passes unless the candidate (one model's items) is significantly worse than the baseline
    on the cases both scored: exact McNemar with one reply per case, a paired permutation test
    with repeats (`proctor.stats.paired`). With `margin` (a share): passes when the candidate is
    SUPERIOR, NON-INFERIOR or EQUIVALENT within it, fails when INFERIOR, and is inconclusive
    otherwise (`proctor.stats.margin`)."""
    a, b = item_scores(candidate), item_scores(baseline)
    common = [sid for sid in a if sid in b]
    requirement = f"not significantly worse than {label}"
    if margin is not None:
        requirement = f"within {margin * 100:g} points of {label}"
    if not common:
        return GateRow(
            requirement, model, "baseline", None, 0, False, "no case scored in both runs"
        )
    if margin is not None:
        decision = decide_margin(
            [b[s] for s in common], [a[s] for s in common], margin, names=(label, model)
        )
        return GateRow(
            requirement, model, "baseline", decision.effect, decision.n, decision.accepted,
            decision.sentence(), decision.low, decision.high,
            decision.verdict == "INCONCLUSIVE", decision.needed,
        )  # fmt: skip
    comparison = compare_paired(
        [a[s] for s in common],
        [b[s] for s in common],
        names=(model, label),
        test=PairedTest(alpha=alpha, seed=seed),
    )
    worse = comparison.significant and comparison.difference < 0
    return GateRow(
        requirement,
        model,
        "baseline",
        comparison.difference,
        comparison.n,
        not worse,
        comparison.verdict(),
    )
