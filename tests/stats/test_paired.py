from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import pytest

from proctor.stats import paired
from proctor.stats.multiple import holm, ranked_comparisons
from proctor.stats.paired import (
    PairedTest,
    compare_paired,
    format_p,
    items_needed,
    mcnemar_exact,
    points_range,
    sign_flip_p,
)


def binomial_reference(b: int, c: int) -> float:
    """2 · Σ_{i ≤ min} C(d, i) / 2^d, capped at 1: the two-sided exact binomial test at 1/2."""
    d = b + c
    tail = sum(math.comb(d, i) for i in range(min(b, c) + 1))
    return min(1.0, float(Fraction(2 * tail, 2**d)))


@pytest.mark.parametrize(
    ("b", "c"), [(0, 0), (1, 0), (0, 5), (3, 12), (12, 3), (10, 10), (7, 8), (40, 60), (0, 30)]
)
def test_mcnemar_is_the_exact_binomial_test(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(binomial_reference(b, c), rel=1e-12)


def test_mcnemar_known_values() -> None:
    # scipy.stats.binomtest(3, 15, 0.5).pvalue == 0.03515625
    assert mcnemar_exact(3, 12) == 0.03515625
    assert mcnemar_exact(0, 5) == 0.0625
    assert mcnemar_exact(5, 5) == 1.0


def test_mcnemar_large_counts_agree_across_methods(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the exact-sum limit a log-space sum takes over; the two agree, and far out both
    agree with the normal approximation."""
    exact = mcnemar_exact(9_900, 10_100)
    monkeypatch.setattr(paired, "_EXACT_LIMIT", 0)
    assert mcnemar_exact(9_900, 10_100) == pytest.approx(exact, rel=1e-9)
    assert mcnemar_exact(3, 12) == pytest.approx(0.03515625, rel=1e-9)
    big = mcnemar_exact(15_000, 15_600)
    z = (15_600 - 15_000 - 1) / math.sqrt(30_600)
    assert big == pytest.approx(2 * (1 - NormalDist().cdf(z)), rel=0.05)


def test_verdict_when_significant() -> None:
    a = [1.0] * 30 + [0.0] * 10
    b = [1.0] * 20 + [0.0] * 20
    c = compare_paired(a, b, names=("gpt", "smol"))
    assert c.significant and c.better == "gpt"
    assert (c.a_only, c.b_only, c.ties, c.n) == (10, 0, 30, 40)
    assert c.difference == pytest.approx(0.25)
    assert c.test == "exact McNemar"
    assert c.p_value == pytest.approx(2 / 1024)
    assert c.items_needed is None
    assert c.verdict().startswith("gpt better than smol by 25.0 points, 95 % CI ")
    assert c.verdict().endswith("p = 0.002")


def test_verdict_names_the_winner_when_b_wins() -> None:
    c = compare_paired([0.0] * 20 + [1.0] * 20, [1.0] * 40, names=("old", "new"))
    assert c.better == "new"
    assert c.difference == pytest.approx(-0.5)
    text = c.verdict()
    assert text.startswith("new better than old by 50.0 points")
    low, high = (float(x) for x in text.split("CI ")[1].split(",")[0].split("–"))
    assert 0 < low <= 50.0 <= high


def test_verdict_when_not_distinguishable_gives_the_items_needed() -> None:
    a = [1, 0, 1, 1, 0, 1, 0, 1] * 5
    b = [1, 1, 0, 1, 0, 1, 0, 0] * 5
    c = compare_paired(a, b, names=("A", "B"))
    assert not c.significant and c.better is None
    text = c.verdict()
    assert "A and B not distinguishable on these 40 items" in text
    assert "A − B = +12.5 points" in text
    assert f"about {c.items_needed:,} items for 80 % power" in text
    assert c.items_needed == items_needed(0.125, c.psi)


def test_items_needed_for_a_stated_difference() -> None:
    c = compare_paired([1, 0] * 20, [0, 1] * 20, test=PairedTest(detect=0.05))
    assert c.difference == 0
    assert "a 5.0-point difference would need about" in c.verdict()


def test_items_needed_formula() -> None:
    """Connor (1987): n = (z_{α/2}·√ψ + z_β·√(ψ − δ²))² / δ², rounded up."""
    z_a, z_b = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.8)
    psi, delta = 0.2, 0.05
    expected = math.ceil((z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2)
    assert items_needed(delta, psi) == expected == 626
    # a 10-point gap needs at least 10 % discordant items: ψ is raised to δ
    assert items_needed(0.10, 0.0) == items_needed(0.10, 0.10)
    # smaller differences need more items, more power needs more items
    assert items_needed(0.02, 0.2) > items_needed(0.05, 0.2)
    assert items_needed(0.05, 0.2, power=0.9) > items_needed(0.05, 0.2)


def test_no_common_items() -> None:
    c = compare_paired([], [], names=("A", "B"))
    assert c.n == 0 and not c.significant and c.mean_a is None
    assert "no scored item in common" in c.verdict()


def test_fractional_scores_use_the_permutation_test() -> None:
    a = [0.8, 0.6, 1.0, 0.4, 0.8] * 10
    b = [0.6, 0.6, 0.8, 0.2, 0.6] * 10
    c = compare_paired(a, b, test=PairedTest(seed=1))
    assert c.test == "paired sign-flip permutation"
    assert c.significant and c.better == "A"
    assert c.p_value == pytest.approx(1 / 10_001)


def test_sign_flip_p() -> None:
    assert sign_flip_p([0.0, 0.0]) == 1.0
    # a single +1 difference: half the flips are as extreme
    assert sign_flip_p([1.0], resamples=10_000, seed=0) == pytest.approx(1.0, abs=0.001)
    assert sign_flip_p([0.5] * 3 + [-0.5], seed=0) == pytest.approx(10 / 16, abs=0.02)


def test_scores_must_be_shares() -> None:
    with pytest.raises(ValueError):
        compare_paired([2.0], [1.0])
    with pytest.raises(ValueError):
        compare_paired([1.0, 0.0], [1.0])


def test_wording() -> None:
    assert format_p(0.0042) == "p = 0.004"
    assert format_p(0.0498) == "p = 0.050"
    assert format_p(0.45) == "p = 0.45"
    assert format_p(0.0001) == "p < 0.001"
    assert points_range(0.021, 0.098) == "2.1–9.8"
    assert points_range(-0.03, 0.08) == "−3.0 to 8.0"


def test_holm() -> None:
    # textbook example: 0.01, 0.04, 0.03, 0.005 → ×4, ×3, ×2, ×1 in ascending order, monotone
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_ranked_comparisons_adjust_as_one_family() -> None:
    scores = {
        "big": {f"q{i}": 1.0 for i in range(60)},
        "mid": {f"q{i}": float(i < 45) for i in range(60)},
        "small": {f"q{i}": float(i < 42) for i in range(60)},
    }
    adjacent = ranked_comparisons(scores, ["big", "mid", "small"])
    assert [(c.a, c.b) for c in adjacent] == [("big", "mid"), ("mid", "small")]
    assert all(c.p_adjusted is not None and c.p_adjusted >= c.p_value for c in adjacent)
    assert adjacent[0].significant and not adjacent[1].significant
    assert "(Holm-adjusted)" in adjacent[0].verdict()
    every = ranked_comparisons(scores, ["big", "mid", "small"], pairs="all")
    assert len(every) == 3
    single = ranked_comparisons(scores, ["big", "mid"])
    assert single[0].p_adjusted is None


def test_ranked_comparisons_pair_on_common_items() -> None:
    scores = {"a": {"x": 1.0, "y": 1.0, "z": 0.0}, "b": {"y": 0.0, "z": 0.0, "w": 1.0}}
    (c,) = ranked_comparisons(scores, ["a", "b"])
    assert c.n == 2 and c.a_only == 1 and c.b_only == 0
