from __future__ import annotations

from math import comb

import pytest

from proctor.stats.passk import majority_vote, pass_at_k


def reference(n: int, c: int, k: int) -> float:
    """1 − C(n − c, k) / C(n, k), with exact integers."""
    return 1.0 - comb(n - c, k) / comb(n, k)


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [
        (1, 0, 1),
        (1, 1, 1),
        (5, 2, 1),
        (5, 2, 3),
        (10, 1, 5),
        (20, 0, 10),
        (20, 19, 1),
        (200, 3, 10),
    ],
)
def test_matches_the_combinatorial_formula(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(reference(n, c, k), rel=1e-12, abs=1e-15)


def test_pass_at_1_is_the_share_correct() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)


def test_certain_when_fewer_wrong_than_k() -> None:
    assert pass_at_k(10, 8, 3) == 1.0
    assert pass_at_k(10, 0, 10) == 0.0


def test_stable_for_large_n() -> None:
    value = pass_at_k(100_000, 10, 1_000)
    assert 0.0 < value < 1.0
    assert value == pytest.approx(1 - (1 - 1_000 / 100_000) ** 10, rel=1e-3)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_rejects_impossible_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (["42", "41", "42"], "42"),
        (["41", "42", "42", "41"], "41"),  # tie: seen first
        ([None, "7", None, None], "7"),  # None ignored, even when most common
        ([None, None], None),
        ([], None),
        (["a", "b", "c"], "a"),
    ],
)
def test_majority_vote(answers: list[str | None], expected: str | None) -> None:
    assert majority_vote(answers) == expected
