"""Evidence-aware checks: a requirement holds when its interval's bound clears the threshold,
not its point estimate.

    rule "bound" (the default)   "accuracy>=0.9" passes when the interval's LOW end is ≥ 0.9,
                                 fails when its HIGH end is < 0.9, and is INCONCLUSIVE between,
                                 with the number of items that would decide it if the observed
                                 rate held ("<=" / "<" mirror this with the other end)
    rule "point"                 the point estimate against the threshold, as before; the report
                                 says the rule was used (`rule=point:accuracy>=0.9`)

Each pass or fail is then a one-sided claim wrong at most (1 − c) / 2 of the time (2.5 % at the
95 % interval); "==" and counts ("n") have no interval and are read on their value.

Intervals: a share (accuracy, format, failed, judge_unscored, consistency) — Wilson's, on the
effective sample size when a case was asked several times (`clustered_wilson_interval`); a mean
(judge_mean) — the normal interval; Cohen's kappa — the bootstrap interval its validation stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from proctor.stats.intervals import clustered_wilson_interval, normal_quantile, wilson_interval

OPS: dict[str, Callable[[float, float], bool]] = {
    # how a requirement's operator compares a value with its threshold (shares within 1e-12)
    ">=": lambda v, t: v >= t - 1e-12,
    "<=": lambda v, t: v <= t + 1e-12,
    ">": lambda v, t: v > t,
    "<": lambda v, t: v < t,
    "==": lambda v, t: math.isclose(v, t, abs_tol=1e-12),
}
Rule = Literal["bound", "point"]
RULES: tuple[Rule, ...] = ("bound", "point")
Result = Literal["pass", "fail", "inconclusive"]
CONFIDENCE = 0.95
_MOST_ITEMS = 10_000_000


@dataclass(frozen=True)
class Bounds:
    """A measured value's interval, and how many items it would take to decide a threshold if
    the observed rate (or mean and spread) held."""

    low: float
    high: float
    kind: Literal["share", "mean", "given"]
    """"given": bounds read from elsewhere (kappa): no items-needed sum."""
    spread: float = 0.0
    """The per-item variance, for a mean."""


def share_bounds(
    outcomes: Sequence[bool], clusters: Sequence[Hashable], confidence: float = CONFIDENCE
) -> Bounds:
    """The interval of a share of 0/1 outcomes; cases asked several times are one cluster."""
    if len(set(clusters)) < len(clusters):  # repeats: never more evidence than the cases
        low, high = clustered_wilson_interval(list(outcomes), list(clusters), confidence)
    else:
        low, high = wilson_interval(sum(outcomes), len(outcomes), confidence)
    return Bounds(low, high, "share")


def count_bounds(successes: int, n: int, confidence: float = CONFIDENCE) -> Bounds:
    low, high = wilson_interval(successes, n, confidence)
    return Bounds(low, high, "share")


def mean_bounds(values: Sequence[float], confidence: float = CONFIDENCE) -> Bounds | None:
    """The normal interval of a mean; None under two values (no spread to read)."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = normal_quantile(confidence) * math.sqrt(variance / n)
    return Bounds(mean - half, mean + half, "mean", variance)


def decide(op: str, value: float, bounds: Bounds | None, threshold: float, rule: Rule) -> Result:
    """pass / fail / inconclusive of `value op threshold` under `rule` (module docstring)."""
    holds = OPS[op]
    if rule == "point" or bounds is None or op == "==":
        return "pass" if holds(value, threshold) else "fail"
    sure, hopeful = (bounds.low, bounds.high) if op in (">=", ">") else (bounds.high, bounds.low)
    if holds(sure, threshold):
        return "pass"
    if not holds(hopeful, threshold):
        return "fail"
    return "inconclusive"


def items_to_decide(
    value: float, bounds: Bounds, threshold: float, confidence: float = CONFIDENCE
) -> int | None:
    """Items that would put the whole interval on one side of `threshold` if the observed
    value held; None when it sits on the threshold (or at 0 % / 100 % against a threshold there:
    no count of items decides it) or bounds came from elsewhere."""
    gap = abs(value - threshold)
    if gap < 1e-12 or bounds.kind == "given":
        return None
    z = normal_quantile(confidence)
    if bounds.kind == "mean":
        return max(2, math.ceil(z * z * bounds.spread / (gap * gap)))
    above = value > threshold
    lo, hi = 1, _MOST_ITEMS
    if not _clears(value, hi, z, threshold, above):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if _clears(value, mid, z, threshold, above):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _clears(p: float, n: int, z: float, threshold: float, above: bool) -> bool:
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    return centre - half > threshold if above else centre + half < threshold
