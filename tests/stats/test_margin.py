"""The margin verdict's rule, read off the interval's bounds, never the point estimate."""

from __future__ import annotations

import pytest

from proctor.errors import ConfigError
from proctor.stats.margin import decide_margin, detectable_effect, parse_points, verdict_of

M = 0.01


@pytest.mark.parametrize(
    ("low", "high", "verdict"),
    [
        # must NOT be accepted first: an interval reaching below −m decides nothing good
        (-0.02, 0.05, "INCONCLUSIVE"),
        (-0.010, 0.0, "INCONCLUSIVE"),  # touching −m is not clearing it
        (-0.05, -0.011, "INFERIOR"),
        (-0.05, -0.0100001, "INFERIOR"),
        (-0.009, 0.02, "NON-INFERIOR"),
        (-0.009, 0.009, "EQUIVALENT"),
        (-0.009, -0.001, "EQUIVALENT"),  # worse, but surely within the margin
        (0.001, 0.005, "SUPERIOR"),
        (0.001, 0.05, "SUPERIOR"),
    ],
)
def test_the_bounds_decide(low: float, high: float, verdict: str) -> None:
    assert verdict_of(low, high, M) == verdict


def test_a_good_point_estimate_on_few_items_is_not_accepted() -> None:
    a = [1, 0, 1, 0, 1]
    b = [1, 1, 1, 0, 1]  # +20 points on 5 items
    decision = decide_margin(a, b, M)
    assert decision.effect == pytest.approx(0.2)
    assert decision.verdict == "INCONCLUSIVE"
    assert not decision.accepted
    assert decision.needed is not None and decision.needed > 5


def test_no_paired_item_is_inconclusive() -> None:
    decision = decide_margin([], [], M)
    assert decision.verdict == "INCONCLUSIVE"
    assert decision.n == 0


def test_fractional_scores_use_the_normal_interval() -> None:
    a = [0.5, 0.6, 0.4, 0.5] * 50
    b = [0.5, 0.6, 0.4, 0.5] * 50
    decision = decide_margin(a, b, M)
    assert decision.method == "normal, paired"
    assert decision.verdict == "EQUIVALENT"


def test_the_detectable_effect_shrinks_with_more_items() -> None:
    small, large = detectable_effect(100, 0.2), detectable_effect(10_000, 0.2)
    assert small is not None and large is not None
    assert large < small / 5
    assert detectable_effect(0, 0.2) is None


@pytest.mark.parametrize(("text", "share"), [("1pp", 0.01), ("2.5", 0.025), ("3 points", 0.03)])
def test_margins_in_points(text: str, share: float) -> None:
    assert parse_points(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["0", "0pp", "-1", "x", "200"])
def test_bad_margins(text: str) -> None:
    with pytest.raises(ConfigError, match="--margin"):
        parse_points(text)
