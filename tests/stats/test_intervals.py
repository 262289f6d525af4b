from __future__ import annotations

import math

import pytest

from proctor.stats import wilson_interval

Z95 = 1.959963984540054  # 97.5th percentile of the standard normal, from tables


def reference(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's closed formula, written out independently of the code under test."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = (z / (1 + z * z / n)) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(
    ("successes", "n"),
    [(0, 10), (10, 10), (5, 10), (81, 263), (1, 1), (0, 1), (50, 100), (3, 7), (999, 1000)],
)
def test_matches_closed_formula(successes: int, n: int) -> None:
    low, high = wilson_interval(successes, n)
    ref_low, ref_high = reference(successes, n)
    assert low == pytest.approx(max(ref_low, 0.0), abs=1e-12)
    assert high == pytest.approx(min(ref_high, 1.0), abs=1e-12)
    assert 0.0 <= low <= successes / n <= high <= 1.0


@pytest.mark.parametrize(
    ("successes", "n", "expected"),
    [
        (81, 263, (0.2553, 0.3662)),
        (5, 10, (0.2366, 0.7634)),
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
    ],
)
def test_known_values(successes: int, n: int, expected: tuple[float, float]) -> None:
    low, high = wilson_interval(successes, n)
    assert low == pytest.approx(expected[0], abs=1e-4)
    assert high == pytest.approx(expected[1], abs=1e-4)


def test_extremes_are_exact() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0


def test_no_trials_says_nothing() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_higher_confidence_is_wider() -> None:
    low95, high95 = wilson_interval(30, 100)
    low99, high99 = wilson_interval(30, 100, confidence=0.99)
    assert low99 < low95 and high99 > high95


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(-1, 10, 0.95), (11, 10, 0.95), (0, -1, 0.95), (1, 2, 0.0), (1, 2, 1.0)],
)
def test_rejects_impossible_input(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)
