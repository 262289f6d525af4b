"""PPI intervals cover the humans' accuracy 95 ± 2 % of the time with a judge biased +10 points
(10,000 simulated validations, vectorised, seeded), where the judge's raw interval almost never
does."""

from __future__ import annotations

import numpy as np

from proctor.stats.intervals import wilson_interval
from proctor.stats.ppi import corrected_accuracy, ppi_mean_bounds

EXPERIMENTS = 10_000
TRUE = 0.60  # the share of replies humans would pass
HIT, FALSE_PASS = 0.95, 0.325  # P(judge passes | right), P(judge passes | wrong): +10 points


def simulate(n: int, big_n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.random((EXPERIMENTS, n + big_n)) < TRUE
    judge = np.where(human, rng.random(human.shape) < HIT, rng.random(human.shape) < FALSE_PASS)
    return human.astype(float), judge.astype(float)


def test_the_judge_is_biased_by_ten_points() -> None:
    human, judge = simulate(100, 900, seed=1)
    assert abs(judge.mean() - human.mean() - 0.10) < 0.005


def test_ppi_covers_95_percent_with_a_biased_judge() -> None:
    n, big_n = 200, 2000
    human, judge = simulate(n, big_n, seed=2)
    _, low, high = ppi_mean_bounds(judge[:, n:], judge[:, :n], human[:, :n])
    covered = int(np.count_nonzero((low <= TRUE) & (high >= TRUE)))
    mc_low, mc_high = wilson_interval(covered, EXPERIMENTS, 0.99)
    print(f"PPI coverage {covered / EXPERIMENTS:.4f} (99 % MC {mc_low:.4f}–{mc_high:.4f})")
    assert 0.93 <= covered / EXPERIMENTS <= 0.97
    raw = judge.mean(axis=1)
    half = 1.96 * np.sqrt(raw * (1 - raw) / (n + big_n))
    raw_covered = np.count_nonzero((raw - half <= TRUE) & (raw + half >= TRUE))
    assert raw_covered / EXPERIMENTS < 0.01  # the raw figure is confidently wrong


def test_the_product_function_matches_the_vectorised_one() -> None:
    human, judge = simulate(50, 300, seed=3)
    h, j = human[0].astype(bool), judge[0].astype(bool)
    found = corrected_accuracy(list(j[50:]), list(zip(j[:50], h[:50], strict=True)))
    est, low, high = ppi_mean_bounds(judge[0, 50:], judge[0, :50], human[0, :50])
    assert found is not None
    assert (found.estimate, found.low, found.high) == (float(est), float(low), float(high))
    assert found.raw > found.estimate  # the judge passes more than humans would
