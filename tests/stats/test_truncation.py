"""Cut-off replies bounded: the rate, the two accuracy bounds and the finished accuracy."""

from __future__ import annotations

import pytest

from proctor.stats.truncation import cap_hits
from proctor.types import GradedItem, Record, Sample, Score, Usage


def reply(i: int, outcome: str, finish: str = "stop", model: str = "m") -> GradedItem:
    sample = Sample(f"s{i}", "q", "1", category="c", answer_type="integer")
    record = Record(
        "r", model, sample.id, "ok", "x", finish, Usage(10, 64), 0.1, 1, "t", "en"
    )  # type: ignore[arg-type]
    return GradedItem(sample, record, Score(outcome, "rule", "why", "1", "1", True))  # type: ignore[arg-type]


def test_no_cut_off_reply_gives_no_rows() -> None:
    assert cap_hits([reply(0, "correct"), reply(1, "wrong")], ["m"], 64) == ()


def test_bounds_count_cut_off_replies_wrong_then_right() -> None:
    items = [
        *(reply(i, "correct") for i in range(6)),
        *(reply(6 + i, "wrong") for i in range(2)),
        reply(8, "truncated", "length"),
        reply(9, "truncated", "length"),
        reply(10, "correct", "length"),  # answered before the cut: correct, but cut off
        reply(11, "call_failed"),  # not scored: never in the figures
    ]
    (row,) = cap_hits(items, ["m"], 64)
    assert (row.scored, row.capped, row.capped_correct) == (11, 3, 1)
    assert row.rate == pytest.approx(3 / 11)
    assert row.accuracy_low == pytest.approx(7 / 11)  # as graded
    assert row.accuracy_high == pytest.approx(9 / 11)  # the two truncated counted right
    assert row.finished_accuracy == pytest.approx(6 / 8)
    assert row.warned and row.suggested_max_tokens == 128
    warning = row.warning()
    assert warning is not None and "3 of 11 replies (27.3 %)" in warning
    assert "between 63.6 % (cut-off counted wrong) and 81.8 %" in warning


def test_a_rate_under_the_threshold_is_shown_but_not_warned() -> None:
    items = [*(reply(i, "correct") for i in range(99)), reply(99, "truncated", "length")]
    (row,) = cap_hits(items, ["m"], None)
    assert not row.warned and row.warning() is None and row.suggested_max_tokens is None
    assert row.cap == 64  # from the cut-off reply's own output tokens


def test_every_model_gets_a_row_when_one_is_cut_off() -> None:
    items = [reply(0, "correct", model="a"), reply(0, "truncated", "length", model="b")]
    rows = cap_hits(items, ["a", "b"], 64)
    assert [(r.model, r.capped) for r in rows] == [("a", 0), ("b", 1)]
