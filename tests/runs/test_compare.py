"""`proctor.runs.compare.CompareAsk`: what `proctor compare` was asked, as its options give it,
made into the paired test and the margin's share here (the CLI computes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.compare import CompareAsk, compare_stored
from proctor.stats.paired import DEFAULT_TEST, PairedTest


def test_the_options_make_the_test_and_the_margin_in_shares(tmp_path: Path) -> None:
    ask = CompareAsk("a", "b", tmp_path, confidence=0.9, alpha=0.1, power=0.7, detect=5.0,
                     resamples=200, seed=3, margin="1.5pp")  # fmt: skip
    assert ask.test == PairedTest(0.9, 0.1, 0.7, 0.05, 200, 3)
    assert ask.margin_share() == pytest.approx(0.015)
    plain = CompareAsk("a", None, tmp_path)
    assert plain.test == DEFAULT_TEST
    assert plain.margin_share() is None


def test_a_margin_that_is_not_points_is_refused_before_any_run_is_read(tmp_path: Path) -> None:
    ask = CompareAsk("no-such-run", None, tmp_path / "nowhere", margin="a lot")
    with pytest.raises(ConfigError, match=r"--margin is a number of points in \(0, 100\]"):
        compare_stored(ask)
