"""Paired comparison of two models on the same items, with a verdict in words.

Each item gives each model a score in [0, 1]: 1 or 0 for one reply, the share of correct replies
when an item was asked several times. On the same items the two models share the items' ease and
difficulty, so a paired test sees differences that two separate intervals would hide.

- The test: with 0/1 scores, the exact McNemar test — conditional on the d = b + c discordant
  items (only A right: b, only B right: c), b ~ Binomial(d, 1/2) under "no difference", and
  p = min(1, 2 · P(X ≤ min(b, c))). With fractional scores (repeats), a paired sign-flip
  permutation test of the mean per-item difference (seeded Monte Carlo).
- The interval: a paired percentile bootstrap of mean(A) − mean(B), resampling items.
- The verdict follows the test (at `alpha`, after any multiple-comparison adjustment); the
  interval says how large the difference may be.
- When the test is inconclusive, `items_needed` says how many items a paired test would need to
  detect a given difference with the given power (Connor, 1987):
      n = (z_{1−α/2} · √ψ + z_{power} · √(ψ − δ²))² / δ²
  with δ the difference to detect and ψ = E[(a_i − b_i)²] (the discordant share for 0/1 scores)
  estimated from these items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING

from proctor.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    as_array,
    paired_bootstrap_difference,
)

if TYPE_CHECKING:  # numpy is imported where it computes (see `proctor.stats.bootstrap`)
    from proctor.stats.bootstrap import FloatArray

DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.8
DEFAULT_DETECT = 0.05
"""The difference to size a test for when the observed one is zero: 5 points."""
_EXACT_LIMIT = 20_000  # discordant pairs up to which the binomial tail is summed exactly
_BLOCK = 1_000_000


@dataclass(frozen=True)
class PairedTest:
    """How a paired comparison is tested: the interval's `confidence`, the test's `alpha`, the
    `power` and the difference (`detect`, a share; None: the observed one) its items-needed
    estimate is sized for, and the seeded bootstrap's `resamples`. One value for every command
    and function that compares (`proctor compare`, gates, leaderboards, margins)."""

    confidence: float = 0.95
    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER
    detect: float | None = None
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0


DEFAULT_TEST = PairedTest()


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    Conditional on the d = a_only + b_only discordant items, a_only ~ Binomial(d, 1/2) when the
    models do not differ; p = min(1, 2 · P(X ≤ min(a_only, b_only))); 1.0 when d = 0.
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"counts must be non-negative, got {a_only} and {b_only}")
    d = a_only + b_only
    k = min(a_only, b_only)
    if d == 0 or 2 * k == d:
        return 1.0
    if d <= _EXACT_LIMIT:
        term, tail = 1, 1  # C(d, 0)
        for i in range(k):
            term = term * (d - i) // (i + 1)
            tail += term
        return min(1.0, float(Fraction(2 * tail, 2**d)))
    # Large d: the same sum in log space (lgamma), shifted by its largest term.
    logs = [math.lgamma(d + 1) - math.lgamma(i + 1) - math.lgamma(d - i + 1) for i in range(k + 1)]
    top = max(logs)
    log_tail = top + math.log(math.fsum(math.exp(x - top) for x in logs)) - d * math.log(2)
    return min(1.0, 2.0 * math.exp(log_tail))


def sign_flip_p(
    differences: Sequence[float] | FloatArray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> float:
    """Two-sided paired permutation p-value for mean(differences) = 0.

    Under "no difference" each item's two scores are exchangeable, so each per-item difference
    is as likely negated: p = (1 + #{flips with |mean| ≥ observed |mean|}) / (1 + resamples).
    """
    import numpy as np

    d = as_array(differences)
    if len(d) == 0 or not np.any(d):
        return 1.0
    observed = abs(float(d.mean())) - 1e-12  # a tie counts as "at least as extreme"
    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK // len(d))
    extreme = 0
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        signs = rng.integers(0, 2, size=(stop - start, len(d))) * 2 - 1
        extreme += int(np.count_nonzero(np.abs((signs * d).mean(axis=1)) >= observed))
    return (1 + extreme) / (1 + resamples)


def items_needed(
    detect: float,
    psi: float,
    *,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> int:
    """Items a two-sided paired test at `alpha` needs to detect a difference `detect` (a share,
    e.g. 0.05 for 5 points) with probability `power`, when ψ = E[(a_i − b_i)²] (for 0/1 scores,
    the share of items the two models disagree on). ψ is raised to |detect| when smaller: a
    difference of δ needs at least a share δ of discordant items."""
    delta = abs(detect)
    if not 0.0 < delta <= 1.0:
        raise ValueError(f"the difference to detect must be in (0, 1], got {detect}")
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power must be between 0 and 1")
    psi = min(1.0, max(psi, delta))
    z_alpha = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    z_power = NormalDist().inv_cdf(power)
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(psi - delta * delta, 0.0))
    return max(1, math.ceil(root * root / (delta * delta)))


@dataclass(frozen=True)
class PairedComparison:
    """Model A against model B on the same `n` items. `difference` is mean(A) − mean(B)."""

    a: str
    b: str
    n: int
    mean_a: float | None
    """None when there is no item (n = 0), like `mean_b`, `ci_low` and `ci_high`."""
    mean_b: float | None
    difference: float
    ci_low: float | None
    ci_high: float | None
    p_value: float
    test: str
    a_only: int
    """Items where A scored higher than B (with 0/1 scores: A right, B wrong)."""
    b_only: int
    ties: int
    """Items where the two scored the same (both right or both wrong with 0/1 scores)."""
    psi: float
    """Mean squared per-item difference (the discordant share with 0/1 scores)."""
    confidence: float = 0.95
    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER
    p_adjusted: float | None = None
    """The p-value after a multiple-comparison correction (Holm), when there was one."""
    detect: float | None = None
    """The difference to size `items_needed` for; None: the observed one (5 points if zero)."""

    @property
    def p(self) -> float:
        """The p-value the verdict uses: adjusted when adjusted."""
        return self.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def significant(self) -> bool:
        return self.n > 0 and self.p < self.alpha

    @property
    def better(self) -> str | None:
        """The model that is significantly better, or None."""
        if not self.significant:
            return None
        return self.a if self.difference > 0 else self.b

    @property
    def detect_difference(self) -> float:
        if self.detect is not None:
            return abs(self.detect)
        return abs(self.difference) if self.difference != 0 else DEFAULT_DETECT

    @property
    def items_needed(self) -> int | None:
        """Items needed to detect `detect_difference` with `power`; None when significant."""
        if self.significant or self.n == 0:
            return None
        return items_needed(self.detect_difference, self.psi, alpha=self.alpha, power=self.power)

    def reversed(self) -> PairedComparison:
        """The same comparison read as B against A (`difference` is then mean(B) − mean(A)):
        for a page whose columns say "B − A", so its sentence says it with the same numbers."""
        low = None if self.ci_high is None else -self.ci_high
        high = None if self.ci_low is None else -self.ci_low
        return replace(
            self, a=self.b, b=self.a, mean_a=self.mean_b, mean_b=self.mean_a,
            difference=-self.difference, ci_low=low, ci_high=high, a_only=self.b_only,
            b_only=self.a_only,
        )  # fmt: skip

    def verdict(self) -> str:
        """One sentence: who is better and by how much, or that they are not distinguishable."""
        if self.n == 0 or self.ci_low is None or self.ci_high is None:
            return f"{self.a} and {self.b} have no scored item in common: nothing to compare."
        p = format_p(self.p) + (" (Holm-adjusted)" if self.p_adjusted is not None else "")
        conf = f"{self.confidence * 100:g} % CI"
        if self.significant:
            sign = 1.0 if self.difference > 0 else -1.0
            winner, loser = (self.a, self.b) if sign > 0 else (self.b, self.a)
            low, high = sorted((sign * self.ci_low, sign * self.ci_high))
            return (
                f"{winner} better than {loser} by {points(abs(self.difference))} points, "
                f"{conf} {points_range(low, high)}, {p}"
            )
        needed = self.items_needed or 0
        return (
            f"{self.a} and {self.b} not distinguishable on these {self.n} items "
            f"({self.a} − {self.b} = {signed_points(self.difference)} points, "
            f"{conf} {points_range(self.ci_low, self.ci_high)}, {p}); "
            f"a {points(self.detect_difference)}-point difference would need about "
            f"{needed:,} items for {self.power * 100:g} % power."
        )


def compare_paired(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    *,
    names: tuple[str, str] = ("A", "B"),
    test: PairedTest = DEFAULT_TEST,
    interval: bool = True,
) -> PairedComparison:
    """Compare per-item scores a[i] and b[i] (same item i) — see the module docstring;
    `interval` False: the test alone (`ci_low`, `ci_high` None), where no one reads the
    interval and its bootstrap would cost most of the time."""
    import numpy as np

    left, right = as_array(a), as_array(b)
    if len(left) != len(right):
        raise ValueError(f"paired samples differ in length: {len(left)} and {len(right)}")
    if np.any((left < 0) | (left > 1) | (right < 0) | (right > 1)):
        raise ValueError("scores must lie in [0, 1]")
    n = len(left)
    d = left - right
    a_only = int(np.count_nonzero(d > 0))
    b_only = int(np.count_nonzero(d < 0))
    means: tuple[float | None, float | None] = (None, None)
    low: float | None = None
    high: float | None = None
    p_value, method = 1.0, "none"
    if n:
        means = (float(left.mean()), float(right.mean()))
        binary = bool(np.all((left == 0) | (left == 1)) and np.all((right == 0) | (right == 1)))
        if binary:
            p_value, method = mcnemar_exact(a_only, b_only), "exact McNemar"
        else:
            p_value = sign_flip_p(d, resamples=test.resamples, seed=test.seed)
            method = "paired sign-flip permutation"
        if interval:
            drawn = paired_bootstrap_difference(
                left, right, confidence=test.confidence, resamples=test.resamples, seed=test.seed
            )
            low, high = drawn.low, drawn.high
    return PairedComparison(
        a=names[0],
        b=names[1],
        n=n,
        mean_a=means[0],
        mean_b=means[1],
        difference=float(d.mean()) if n else 0.0,
        ci_low=low,
        ci_high=high,
        p_value=p_value,
        test=method,
        a_only=a_only,
        b_only=b_only,
        ties=n - a_only - b_only,
        psi=float((d * d).mean()) if n else 0.0,
        confidence=test.confidence,
        alpha=test.alpha,
        power=test.power,
        detect=test.detect,
    )


def with_adjusted_p(comparison: PairedComparison, p_adjusted: float) -> PairedComparison:
    return replace(comparison, p_adjusted=p_adjusted)


def format_p(p: float) -> str:
    """p = 0.004, p = 0.049, p = 0.45, p < 0.001."""
    if p < 0.001:
        return "p < 0.001"
    if p < 0.1:
        return f"p = {p:.3f}"
    return f"p = {p:.2f}"


def points(share: float) -> str:
    """0.06 → "6.0"."""
    return f"{share * 100:.1f}"


def signed_points(share: float) -> str:
    """0.025 → "+2.5", −0.03 → "−3.0"."""
    text = f"{share * 100:+.1f}"
    return text.replace("-", "−")


def points_range(low: float, high: float) -> str:
    """(0.021, 0.098) → "2.1–9.8"; with a negative bound "−3.0 to 8.0"."""
    if low < 0 or high < 0:
        return f"{points(low)} to {points(high)}".replace("-", "−")
    return f"{points(low)}–{points(high)}"
