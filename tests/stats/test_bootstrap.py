from __future__ import annotations

import numpy as np
import pytest

from proctor.stats import wilson_interval
from proctor.stats.bootstrap import (
    bootstrap_interval,
    cluster_bootstrap_interval,
    paired_bootstrap_difference,
)
from proctor.stats.intervals import (
    clustered_mean_interval,
    clustered_wilson_interval,
    normal_quantile,
)


def _scores(n: int = 1_000, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random(n) < 0.7).astype(float)


def test_same_seed_same_interval_other_seed_other_interval() -> None:
    values = np.random.default_rng(0).random(200)
    first = bootstrap_interval(values, seed=3)
    assert bootstrap_interval(values, seed=3) == first
    assert bootstrap_interval(values, seed=4) != first


def test_ten_thousand_resamples_of_a_thousand_items_give_an_interval() -> None:
    # Speed is bench/'s business (no timed assertions here).
    values = _scores()
    interval = bootstrap_interval(values, resamples=10_000)
    assert interval.low <= float(np.mean(values)) <= interval.high


def test_interval_is_close_to_the_normal_one() -> None:
    values = _scores()
    interval = bootstrap_interval(values)
    mean = values.mean()
    half = normal_quantile(0.95) * values.std(ddof=1) / np.sqrt(len(values))
    assert interval.estimate == pytest.approx(mean)
    assert interval.low == pytest.approx(mean - half, abs=0.005)
    assert interval.high == pytest.approx(mean + half, abs=0.005)
    assert interval.method == "percentile bootstrap"


def test_any_statistic() -> None:
    values = np.arange(101, dtype=float)
    interval = bootstrap_interval(values, statistic=lambda m: np.median(m, axis=1), seed=1)
    assert interval.estimate == 50.0
    assert interval.low < 50.0 < interval.high


def test_constant_values_give_a_point() -> None:
    interval = bootstrap_interval([1.0] * 30)
    assert (interval.low, interval.high) == (1.0, 1.0)


@pytest.mark.parametrize("bad", [[], [[1.0, 2.0]]])
def test_rejects_bad_input(bad: list[object]) -> None:
    with pytest.raises(ValueError):
        bootstrap_interval(bad)  # type: ignore[arg-type]


def test_paired_difference_cancels_what_the_items_share() -> None:
    """B = A with 5 % of items flipped to wrong: the paired interval is tight around 5 points,
    much tighter than two separate intervals would suggest."""
    rng = np.random.default_rng(9)
    a = (rng.random(1_000) < 0.6).astype(float)
    b = a.copy()
    right = np.flatnonzero(a == 1)
    b[rng.choice(right, 50, replace=False)] = 0.0
    interval = paired_bootstrap_difference(a, b, seed=2)
    assert interval.estimate == pytest.approx(0.05)
    assert 0.03 < interval.low < 0.05 < interval.high < 0.07
    assert interval.method == "paired percentile bootstrap"


def test_paired_lengths_must_match() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap_difference([1.0, 0.0], [1.0])


def test_cluster_bootstrap_with_one_item_per_cluster_is_the_plain_bootstrap() -> None:
    values = _scores(300)
    clustered = cluster_bootstrap_interval(values, list(range(300)), seed=5)
    plain = bootstrap_interval(values, seed=5)
    assert clustered.low == pytest.approx(plain.low, abs=0.01)
    assert clustered.high == pytest.approx(plain.high, abs=0.01)


def test_clusters_widen_the_interval_when_items_move_together() -> None:
    values = np.repeat(_scores(50, seed=1), 10)  # ten copies of each item: 50 bits of evidence
    labels = list(np.repeat(np.arange(50), 10))
    clustered = cluster_bootstrap_interval(values, labels, seed=1)
    plain = bootstrap_interval(values, seed=1)
    assert clustered.high - clustered.low > 2.5 * (plain.high - plain.low)
    low, high = clustered_mean_interval(list(values), labels)
    assert high - low == pytest.approx(clustered.high - clustered.low, rel=0.15)


def test_clustered_mean_interval_formula() -> None:
    """Written out by hand: two clusters {1, 1} and {0, 1}, mean 0.75."""
    low, high = clustered_mean_interval([1.0, 1.0, 0.0, 1.0], ["a", "a", "b", "b"])
    residual_a, residual_b = 0.5, -0.5
    se = np.sqrt(2 / 1 * (residual_a**2 + residual_b**2) / 16)
    z = normal_quantile(0.95)
    assert (low, high) == pytest.approx((0.75 - z * se, 0.75 + z * se))


def test_clustered_mean_interval_needs_two_clusters() -> None:
    with pytest.raises(ValueError):
        clustered_mean_interval([1.0, 0.0], ["a", "a"])


def test_clustered_wilson_interval() -> None:
    # independent items (one per cluster): the plain Wilson interval
    outcomes = [1] * 30 + [0] * 10
    assert clustered_wilson_interval(outcomes, list(range(40))) == pytest.approx(
        wilson_interval(30, 40)
    )
    # ten copies of each of 4 items: the evidence of 4 items, not 40
    copies = [1] * 30 + [0] * 10
    labels = [i // 10 for i in range(40)]
    assert clustered_wilson_interval(copies, labels) == pytest.approx(wilson_interval(3, 4))
    # all wrong: no collapse to a point; as cautious as one item per cluster
    assert clustered_wilson_interval([0] * 30, [i // 3 for i in range(30)]) == pytest.approx(
        wilson_interval(0, 10)
    )
    with pytest.raises(ValueError):
        clustered_wilson_interval([0.5], ["a"])
