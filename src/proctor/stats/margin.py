"""Margin verdicts: is a candidate (B) as good as a baseline (A), within a practical margin?

"Not significantly worse" is read by users as "the same"; it is not. With a margin m (e.g. one
point) the question is answered from the paired confidence interval [L, U] of δ = mean(B) −
mean(A), never from the point estimate:

    SUPERIOR       L > 0             B is better than A
    INFERIOR       U < −m            B is worse than A by more than the margin
    EQUIVALENT     −m < L, U < m     two one-sided tests (TOST): within ±m of A
    NON-INFERIOR   −m < L            B is at most m worse than A
    INCONCLUSIVE   otherwise         the interval straddles −m: more items would decide it

Each verdict is a one-sided claim that the interval's bound makes, so with a two-sided interval
at confidence c each verdict is wrong with probability at most (1 − c) / 2 (2.5 % at 95 %), and
EQUIVALENT, two such claims at once, too (Schuirmann, 1987). `tests/stats/test_margin_simulation.py`
checks these rates over simulated paired 0/1 data with realistic correlation.

The interval: with 0/1 scores, Agresti and Min's (2005) adjusted Wald interval for the difference
of two paired proportions (half an item added to each cell of the 2 × 2 table; it keeps its
coverage near the nominal level even for small n and rare discordance). With fractional scores
(repeats), the normal interval of the mean per-item difference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from proctor.errors import ConfigError
from proctor.stats.bootstrap import as_array
from proctor.stats.intervals import normal_quantile
from proctor.stats.paired import (
    DEFAULT_ALPHA,
    DEFAULT_POWER,
    DEFAULT_TEST,
    PairedTest,
    items_needed,
    points,
    signed_points,
)

if TYPE_CHECKING:  # numpy is imported where it computes (see `proctor.stats.bootstrap`)
    from numpy.typing import ArrayLike

    from proctor.stats.bootstrap import FloatArray

Verdict = Literal["SUPERIOR", "NON-INFERIOR", "EQUIVALENT", "INFERIOR", "INCONCLUSIVE"]
VERDICTS: tuple[Verdict, ...] = (
    "SUPERIOR",
    "NON-INFERIOR",
    "EQUIVALENT",
    "INFERIOR",
    "INCONCLUSIVE",
)
ACCEPTED: frozenset[Verdict] = frozenset({"SUPERIOR", "NON-INFERIOR", "EQUIVALENT"})
"""The verdicts that let a candidate through."""

_POINTS = re.compile(r"\s*(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>pp|pts?|points?|%)?\s*\Z", re.I)


def parse_points(text: str, what: str = "--margin") -> float:
    """A difference in points ("1pp", "1.5", "2 points", "1%") as a share (0.01); ConfigError
    naming `what` when it is not a number of points in (0, 100]."""
    match = _POINTS.match(text)
    value = float(match.group("value")) if match else -1.0
    if not 0.0 < value <= 100.0:
        raise ConfigError(f"{what} is a number of points in (0, 100], e.g. 1pp: got {text!r}")
    return value / 100.0


@dataclass(frozen=True)
class DifferenceInterval:
    estimate: float
    """mean(B) − mean(A) over the paired items."""
    low: float
    high: float
    variance: float
    """Per-item variance of the difference (what n items divide), for the items-to-decide sum."""
    method: str


def difference_interval(
    a: Sequence[float] | FloatArray, b: Sequence[float] | FloatArray, confidence: float = 0.95
) -> DifferenceInterval:
    """The interval of mean(b) − mean(a) over paired items (module docstring)."""
    import numpy as np

    left, right = as_array(a), as_array(b)
    n = len(left)
    if n == 0 or n != len(right):
        raise ValueError(f"need the same non-zero number of paired items, got {n}, {len(right)}")
    z = normal_quantile(confidence)
    d = right - left
    binary = bool(np.all((left == 0) | (left == 1)) and np.all((right == 0) | (right == 1)))
    if binary:
        b_only = np.count_nonzero(d > 0)
        a_only = np.count_nonzero(d < 0)
        lows, highs, variances = paired_binary_bounds(b_only, a_only, n, confidence)
        return DifferenceInterval(
            float(d.mean()), float(lows), float(highs), float(variances), "Agresti-Min paired"
        )
    mean = float(d.mean())
    variance = float(d.var(ddof=1)) if n >= 2 else 1.0
    variance = max(variance, 1.0 / (n + 2) ** 2)  # never a zero-width interval from few items
    half = z * math.sqrt(variance / n)
    return DifferenceInterval(
        mean, max(-1.0, mean - half), min(1.0, mean + half), variance, "normal, paired"
    )


def paired_binary_bounds(
    b_only: ArrayLike, a_only: ArrayLike, n: ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(low, high, per-item variance) of mean(B) − mean(A) for 0/1 scores from the discordant
    counts (only B right, only A right) of n items: Agresti and Min's adjusted Wald interval.
    Vectorised: counts may be arrays (the simulations decide thousands at once)."""
    import numpy as np

    z = normal_quantile(confidence)
    size = np.asarray(n, dtype=np.float64) + 2.0
    p_b = (np.asarray(b_only, dtype=np.float64) + 0.5) / size
    p_a = (np.asarray(a_only, dtype=np.float64) + 0.5) / size
    centre = p_b - p_a
    variance = (p_b + p_a) - centre * centre
    half = z * np.sqrt(variance / size)
    low: FloatArray = np.maximum(-1.0, centre - half)
    high: FloatArray = np.minimum(1.0, centre + half)
    return low, high, variance


def verdict_of(low: float, high: float, margin: float) -> Verdict:
    """The verdict the interval [low, high] of B − A gives with `margin` (module docstring)."""
    if low > 0:
        return "SUPERIOR"
    if high < -margin:
        return "INFERIOR"
    if low > -margin and high < margin:
        return "EQUIVALENT"
    if low > -margin:
        return "NON-INFERIOR"
    return "INCONCLUSIVE"


def detectable_effect(
    n: int, psi: float, *, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER
) -> float | None:
    """The smallest difference (a share) a two-sided paired test at `alpha` finds with `power`
    on `n` items whose mean squared difference is ψ (`paired.items_needed` solved for δ)."""
    if n <= 0:
        return None
    lo, hi = 1e-6, 1.0
    if items_needed(hi, psi, alpha=alpha, power=power) > n:
        return None
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if items_needed(mid, psi, alpha=alpha, power=power) <= n:
            hi = mid
        else:
            lo = mid
    return hi


def items_to_decide(interval: DifferenceInterval, margin: float, confidence: float) -> int | None:
    """Paired items that would decide the margin question if the observed difference held: the
    fewest n whose interval clears −m from above (NON-INFERIOR) or from below (INFERIOR).
    None when the estimate sits exactly on −m."""
    z = normal_quantile(confidence)
    gap = abs(interval.estimate + margin)
    if gap < 1e-12:
        return None
    return max(1, math.ceil(z * z * interval.variance / (gap * gap)))


@dataclass(frozen=True)
class MarginDecision:
    """The margin question answered for candidate B against baseline A on `n` paired items."""

    verdict: Verdict
    baseline: str
    candidate: str
    margin: float
    """A share: 0.01 for one point."""
    n: int
    effect: float
    """mean(B) − mean(A)."""
    low: float
    high: float
    confidence: float
    method: str
    detectable: float | None
    """Minimum detectable effect of a two-sided paired test at `alpha` with `power`."""
    needed: int | None
    """When INCONCLUSIVE: paired items that would decide it if the observed difference held."""
    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER

    @property
    def accepted(self) -> bool:
        return self.verdict in ACCEPTED

    @property
    def error_rate(self) -> float:
        """The most each verdict can be wrong: one tail of the interval."""
        return (1.0 - self.confidence) / 2.0

    def sentence(self) -> str:
        """One sentence a release manager can paste."""
        b, a, m = self.candidate, self.baseline, points(self.margin)
        figures = (
            f"{b} − {a} = {signed_points(self.effect)} points, {self.confidence * 100:g} % CI "
            f"{signed_points(self.low)} to {signed_points(self.high)}, on {self.n:,} paired items"
        )
        head = {
            "SUPERIOR": f"{b} is better than {a}",
            "INFERIOR": f"{b} is worse than {a} by more than the {m}-point margin",
            "EQUIVALENT": f"{b} is within ±{m} points of {a}",
            "NON-INFERIOR": f"{b} is at most {m} points worse than {a}",
            "INCONCLUSIVE": f"these items cannot tell whether {b} is within {m} points of {a}",
        }[self.verdict]
        tail = ""
        if self.verdict == "INCONCLUSIVE":
            tail = (
                f"; about {self.needed:,} paired items would decide it if the difference held"
                if self.needed is not None
                else "; the difference sits on the margin: more items at this rate do not decide it"
            )
        return f"{self.verdict}: {head} ({figures}){tail}."

    def method_line(self) -> str:
        mde = "—" if self.detectable is None else f"{points(self.detectable)} points"
        return (
            f"Margin {points(self.margin)} points, decided from the {self.confidence * 100:g} % "
            f"interval ({self.method}), never the point estimate: each verdict is wrong at most "
            f"{self.error_rate * 100:g} % of the time (equivalence by two one-sided tests). "
            f"Minimum detectable effect at {self.power * 100:g} % power: {mde}."
        )


def decide_margin(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    margin: float,
    *,
    names: tuple[str, str] = ("A", "B"),
    test: PairedTest = DEFAULT_TEST,
) -> MarginDecision:
    """Answer the margin question for candidate `b` against baseline `a` (same items, same
    order) from `test`'s confidence, alpha and power; INCONCLUSIVE on no item."""
    confidence, alpha, power = test.confidence, test.alpha, test.power
    if not 0.0 < margin <= 1.0:
        raise ValueError(f"the margin is a share in (0, 1], got {margin}")
    left, right = as_array(a), as_array(b)
    n = len(left)
    if n == 0:
        return MarginDecision(
            "INCONCLUSIVE", names[0], names[1], margin, 0, 0.0, -1.0, 1.0, confidence,
            "no paired item", None, None, alpha, power,
        )  # fmt: skip
    interval = difference_interval(left, right, confidence)
    verdict = verdict_of(interval.low, interval.high, margin)
    d = right - left
    psi = float((d * d).mean())
    return MarginDecision(
        verdict=verdict,
        baseline=names[0],
        candidate=names[1],
        margin=margin,
        n=n,
        effect=interval.estimate,
        low=interval.low,
        high=interval.high,
        confidence=confidence,
        method=interval.method,
        detectable=detectable_effect(n, psi, alpha=alpha, power=power),
        needed=items_to_decide(interval, margin, confidence) if verdict == "INCONCLUSIVE" else None,
        alpha=alpha,
        power=power,
    )
