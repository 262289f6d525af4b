"""Quality gates: requirements such as "accuracy>=0.9" or "kind=extraction:accuracy>=0.95",
checked against a run's graded items; pure, so CI can gate on a stored run without a model.

Syntax: `[KEY=VALUE[,KEY=VALUE…]:]METRIC OP NUMBER` with OP one of >= <= > < == and NUMBER a
share (0.9), a percentage (90%) or a count. Filter keys: kind (a suite case's kind, else the
category), category, difficulty, model, id, or any key of the samples' metadata. Without a
model filter a requirement is checked for every model of the run, and each must pass.

A requirement that cannot be measured (no scored reply in its slice, no repeated replies for
consistency, no judge verdict for judge_mean) fails, and says why: a gate never passes on
nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from proctor.errors import ConfigError
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.paired import compare_paired
from proctor.stats.repeats import repeat_metrics
from proctor.stats.scores import item_scores
from proctor.types import GradedItem

JudgeKappa = Mapping[str, tuple[float | None, int]]
"""Model → (the judge's kappa against human verdicts on its answers, labelled answers compared);
"" holds the overall figure (a pairwise validation has only that)."""

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
    "n": "number of scored replies",
}

OPS: dict[str, Callable[[float, float], bool]] = {
    # how a requirement's operator compares a value with its threshold (shares within 1e-12)
    ">=": lambda v, t: v >= t - 1e-12,
    "<=": lambda v, t: v <= t + 1e-12,
    ">": lambda v, t: v > t,
    "<": lambda v, t: v < t,
    "==": lambda v, t: math.isclose(v, t, abs_tol=1e-12),
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
    threshold = float(match.group("value"))
    if match.group("pct"):
        threshold /= 100.0
    return Requirement(stripped, tuple(filters), metric, match.group("op"), threshold)


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


def measure(
    metric: str, items: Sequence[GradedItem], judge: JudgeScores
) -> tuple[float | None, int, str]:
    """(value, n, note) of `metric` over `items` (one model's); value None when unmeasurable."""
    scored = [i for i in items if i.score.outcome not in NOT_SCORED]
    if metric == "accuracy":
        if not scored:
            return None, 0, "no scored reply"
        return sum(i.score.outcome == "correct" for i in scored) / len(scored), len(scored), ""
    if metric == "format":
        if not scored:
            return None, 0, "no scored reply"
        return sum(i.score.format_ok for i in scored) / len(scored), len(scored), ""
    if metric == "n":
        return float(len(scored)), len(scored), ""
    if metric == "failed":
        if not items:
            return None, 0, "no reply"
        failed = sum(i.score.outcome == "call_failed" for i in items)
        return failed / len(items), len(items), ""
    if metric == "consistency":
        stability = [m.stability for m in repeat_metrics(items, ks=()).values()]
        if not stability or stability[0].value is None:
            return None, 0, "no case has 2+ scored replies: run with --samples 5"
        return stability[0].value, stability[0].n, "cases"
    verdicts = [
        judge[key] for i in items if (key := (i.record.model, i.sample.id, i.record.epoch)) in judge
    ]
    if not verdicts:
        return None, 0, "no judge verdict: run proctor judge RUN --judge MODEL"
    if metric == "judge_unscored":
        return sum(v is None for v in verdicts) / len(verdicts), len(verdicts), ""
    values = [v for v in verdicts if v is not None]
    if not values:
        return None, len(verdicts), "the judge scored none of the judged replies"
    return sum(values) / len(values), len(values), ""


def evaluate(
    requirements: Sequence[Requirement],
    items: Sequence[GradedItem],
    models: Sequence[str],
    judge: JudgeScores | None = None,
    kappa: JudgeKappa | None = None,
) -> list[GateRow]:
    """One row per requirement and model (the model named by a model filter, else each)."""
    rows: list[GateRow] = []
    by_model: dict[str, list[GradedItem]] = {}
    for i in items:
        by_model.setdefault(i.record.model, []).append(i)
    for req in requirements:
        named = [v for k, v in req.filters if k == "model"]
        for model in named or list(models):
            mine = by_model.get(model, [])
            if req.metric == "judge_kappa":
                value, n, note = _kappa_of(kappa or {}, model)
            else:
                value, n, note = measure(req.metric, _selected(mine, req.filters), judge or {})
            passed = value is not None and OPS[req.op](value, req.threshold)
            rows.append(GateRow(req.text, model, req.metric, value, n, passed, note))
    return rows


def _kappa_of(kappa: JudgeKappa, model: str) -> tuple[float | None, int, str]:
    found = kappa.get(model) or kappa.get("")
    if found is None:
        return None, 0, "no judge validation: run proctor judge RUN --judge M --against LABELS.csv"
    value, n = found
    return value, n, "" if value is not None else "kappa is undefined (one label on both sides)"


def not_worse_than(
    candidate: Sequence[GradedItem],
    baseline: Sequence[GradedItem],
    *,
    label: str,
    model: str,
    alpha: float = 0.05,
    seed: int = 0,
) -> GateRow:
    """Passes unless the candidate (one model's items) is significantly worse than the baseline
    on the cases both scored: exact McNemar with one reply per case, a paired permutation test
    with repeats (`proctor.stats.paired`)."""
    a, b = item_scores(candidate), item_scores(baseline)
    common = [sid for sid in a if sid in b]
    requirement = f"not significantly worse than {label}"
    if not common:
        return GateRow(
            requirement, model, "baseline", None, 0, False, "no case scored in both runs"
        )
    comparison = compare_paired(
        [a[s] for s in common],
        [b[s] for s in common],
        names=(model, label),
        alpha=alpha,
        seed=seed,
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
