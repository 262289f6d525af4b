"""pass@k equals the reference formula 1 − C(n−c, k)/C(n, k), computed exactly, to 1e-12."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest

from proctor.stats.passk import majority_vote, pass_at_k


def reference(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def test_pass_at_k_matches_the_exact_formula_on_random_cases() -> None:
    rng = random.Random(20240601)
    for _ in range(3000):
        n = rng.randint(1, 300)
        c = rng.randint(0, n)
        k = rng.randint(1, n)
        assert abs(pass_at_k(n, c, k) - float(reference(n, c, k))) <= 1e-12, (n, c, k)


def test_pass_at_k_edges() -> None:
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 6, 5) == 1.0  # fewer than k wrong replies: some k-subset always passes
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4, abs=1e-12)


def test_majority_vote_ignores_missing_answers_and_breaks_ties_by_first_seen() -> None:
    assert majority_vote(["3", None, "4", "4"]) == "4"
    assert majority_vote(["5", "6"]) == "5"
    assert majority_vote([None, None]) is None
    assert majority_vote([]) is None
