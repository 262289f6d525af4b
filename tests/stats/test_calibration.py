"""ECE, Brier and reliability bins on hand-computed cases; weights are checked."""

from __future__ import annotations

import math

import pytest

from proctor.errors import ConfigError
from proctor.score.structured import StructuredScorer, check_weights
from proctor.stats.calibration import (
    CalibrationTally,
    brier_score,
    expected_calibration_error,
    reliability_bins,
    summarize_calibration,
)


def test_perfectly_calibrated_has_zero_ece() -> None:
    conf = [0.25, 0.25, 0.25, 0.25, 1.0, 1.0]
    ok = [True, False, False, False, True, True]
    assert expected_calibration_error(conf, ok, bins=4) == pytest.approx(0.0)


def test_ece_hand_computed() -> None:
    # bin [0.9, 1.0]: mean conf 0.95, accuracy 0.5 → gap 0.45, weight 2/4
    # bin [0.1, 0.2): mean conf 0.1, accuracy 0.5 → gap 0.4, weight 2/4
    conf = [0.9, 1.0, 0.1, 0.1]
    ok = [True, False, True, False]
    assert expected_calibration_error(conf, ok) == pytest.approx(0.5 * 0.45 + 0.5 * 0.4)


def test_brier_and_edges() -> None:
    assert brier_score([1.0, 0.0], [True, False]) == 0.0
    assert brier_score([1.0, 0.0], [False, True]) == 1.0
    assert brier_score([0.5], [True]) == 0.25
    assert brier_score([], []) == 0.0
    assert expected_calibration_error([], []) == 0.0


def test_confidence_one_lands_in_last_bin_and_empty_bins_are_kept() -> None:
    bins = reliability_bins([1.0, 0.0, 0.55], [True, False, True], bins=10)
    assert len(bins) == 10
    assert bins[9].count == 1 and bins[9].accuracy == 1.0
    assert bins[0].count == 1 and bins[0].accuracy == 0.0
    assert bins[5].count == 1 and bins[5].mean_confidence == pytest.approx(0.55)
    assert bins[3].count == 0 and bins[3].accuracy is None and bins[3].gap is None
    assert math.isclose(bins[2].lower, 0.2) and math.isclose(bins[2].upper, 0.3)


def test_summary_and_bad_input() -> None:
    s = summarize_calibration([0.8, 0.6], [True, False])
    assert s.n == 2 and s.accuracy == 0.5 and s.mean_confidence == pytest.approx(0.7)
    with pytest.raises(ConfigError):
        brier_score([0.5], [True, False])
    with pytest.raises(ConfigError):
        reliability_bins([1.2], [True])


def test_weights_are_checked() -> None:
    assert check_weights({"calibration": 0.5, "timeliness": 0.25, "traceability": 0.25})
    for bad in (
        {"calibration": 0.5, "timeliness": 0.5},
        {"calibration": 0.5, "timeliness": 0.5, "traceability": 0.5},
        {"calibration": -0.5, "timeliness": 1.0, "traceability": 0.5},
    ):
        with pytest.raises(ConfigError):
            check_weights(bad)
    with pytest.raises(ConfigError):
        StructuredScorer(weights={"calibration": 1.0}).score_text("{}", None)  # type: ignore[arg-type]


def test_a_tally_fed_one_answer_at_a_time_keeps_bins_not_answers() -> None:
    """The hand-computed case above, added one answer at a time: the same ECE, Brier, means and
    bins, from what the tally keeps (per bin a count, hits and a sum; three sums overall)."""
    tally = CalibrationTally()
    for c, ok in [(0.9, True), (1.0, False), (0.1, True), (0.1, False)]:
        tally.add(c, ok)
    assert tally.n == 4
    assert tally.ece == pytest.approx(0.5 * 0.45 + 0.5 * 0.4)
    # Brier: (0.1² + 1² + 0.9² + 0.1²) / 4
    assert tally.brier == pytest.approx((0.01 + 1.0 + 0.81 + 0.01) / 4)
    summary = tally.summary()
    assert summary.mean_confidence == pytest.approx(0.525) and summary.accuracy == 0.5
    assert [b.count for b in summary.bins] == [0, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    for i in range(1000):  # more answers: nothing it keeps grows with them
        tally.add(i % 10 / 10, i % 2 == 0)
    assert tally.n == 1004
    assert all(len(v) == 10 for v in vars(tally).values() if isinstance(v, list | tuple))


def test_a_tally_refuses_what_a_list_is_refused() -> None:
    tally = CalibrationTally()
    for bad in (1.2, -0.1, math.nan):
        with pytest.raises(ConfigError, match="outside"):
            tally.add(bad, True)
    assert tally.n == 0 and tally.summary().brier == 0.0 and tally.ece == 0.0
    with pytest.raises(ConfigError, match="at least 1"):
        CalibrationTally(bins=0)
