"""Margin verdicts keep their error rates: 10,000 simulated paired 0/1 comparisons per case, with
a realistic correlation between the two models' right answers, decided at once (vectorised,
seeded). Each rate is reported with its own 99 % Monte-Carlo interval (Wilson) and must stay at
or below α = 0.05 (the 95 % interval, nominally missing 5 %, must not be shown above it: its
Monte-Carlo interval reaches down to α); every one-sided verdict is built to be wrong at most
2.5 % of the time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from proctor.stats.intervals import wilson_interval
from proctor.stats.margin import decide_margin, paired_binary_bounds, verdict_of

ALPHA = 0.05
EXPERIMENTS = 10_000
MARGIN = 0.02


def cells(p_a: float, p_b: float, rho: float) -> list[float]:
    """Probabilities of (both right, only A right, only B right, both wrong) for two models
    whose right answers correlate by `rho` across items."""
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return [both, p_a - both, p_b - both, 1.0 - p_a - p_b + both]


def simulate(
    p_a: float, p_b: float, rho: float, n: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, estimate) of B − A for EXPERIMENTS runs of n paired items."""
    counts = np.random.default_rng(seed).multinomial(n, cells(p_a, p_b, rho), size=EXPERIMENTS)
    a_only, b_only = counts[:, 1], counts[:, 2]
    low, high, _ = paired_binary_bounds(b_only, a_only, n)
    return low, high, (b_only - a_only) / n


def rate(hits: int, label: str) -> tuple[float, float]:
    """The observed share and the low end of its 99 % Monte-Carlo interval (printed: -s)."""
    low, high = wilson_interval(hits, EXPERIMENTS, 0.99)
    share = hits / EXPERIMENTS
    print(f"{label}: {share:.4f} (99 % MC interval {low:.4f}–{high:.4f}) over {EXPERIMENTS:,}")
    return share, low


CASES = [  # (accuracy of A, n items, correlation of right answers)
    (0.75, 100, 0.5),
    (0.80, 400, 0.6),
    (0.60, 1000, 0.4),
    (0.90, 2000, 0.7),
]


@pytest.mark.parametrize(("p_a", "n", "rho"), CASES)
def test_the_interval_misses_the_true_difference_at_most_alpha(
    p_a: float, n: int, rho: float
) -> None:
    for k, true in enumerate((0.0, -MARGIN, 0.03)):
        low, high, _ = simulate(p_a, p_a + true, rho, n, seed=int(n * 10 + k))
        missed = int(np.count_nonzero((low > true) | (high < true)))
        share, mc_low = rate(missed, f"interval misses δ={true:+}, n={n}")
        # nominally exactly α: the simulation must not show it above α
        assert mc_low <= ALPHA
        assert share <= ALPHA + 0.01


@pytest.mark.parametrize(("p_a", "n", "rho"), CASES)
def test_a_false_release_verdict_stays_under_alpha(p_a: float, n: int, rho: float) -> None:
    """At the boundary where each verdict is false (the hardest case for it)."""
    verdicts = np.vectorize(lambda lo, hi: verdict_of(lo, hi, MARGIN))
    # B truly worse by the margin: NON-INFERIOR, EQUIVALENT and SUPERIOR are all false
    low, high, _ = simulate(p_a, p_a - MARGIN, rho, n, seed=n + 1)
    said = verdicts(low, high)
    wrong = np.isin(said, ["NON-INFERIOR", "EQUIVALENT", "SUPERIOR"])
    assert rate(int(wrong.sum()), f"accepted at δ = −m, n={n}") [0] <= ALPHA
    # B truly no different: SUPERIOR and INFERIOR are false
    low, high, _ = simulate(p_a, p_a, rho, n, seed=n + 2)
    said = verdicts(low, high)
    assert rate(int((said == "SUPERIOR").sum()), f"SUPERIOR at δ = 0, n={n}")[0] <= ALPHA
    assert rate(int((said == "INFERIOR").sum()), f"INFERIOR at δ = 0, n={n}")[0] <= ALPHA
    # B truly better by the margin: EQUIVALENT is false
    low, high, _ = simulate(p_a, min(1.0, p_a + MARGIN), rho, n, seed=n + 3)
    said = verdicts(low, high)
    assert rate(int((said == "EQUIVALENT").sum()), f"EQUIVALENT at δ = +m, n={n}")[0] <= ALPHA


def test_the_simulated_rule_is_the_products_rule() -> None:
    """The vectorised bounds the simulation uses are the ones `decide_margin` reports."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        counts = rng.multinomial(300, cells(0.7, 0.69, 0.5))
        a = [1] * counts[0] + [1] * counts[1] + [0] * counts[2] + [0] * counts[3]
        b = [1] * counts[0] + [0] * counts[1] + [1] * counts[2] + [0] * counts[3]
        decision = decide_margin(a, b, MARGIN)
        low, high, _ = paired_binary_bounds(counts[2], counts[1], 300)
        assert (decision.low, decision.high) == pytest.approx((float(low), float(high)))
        assert decision.verdict == verdict_of(float(low), float(high), MARGIN)


def test_a_real_difference_is_found() -> None:
    """The rule is not merely timid: a 5-point gain on 2,000 items is SUPERIOR nearly always."""
    low, _, _ = simulate(0.70, 0.75, 0.5, 2000, seed=9)
    assert (low > 0).mean() > 0.95
