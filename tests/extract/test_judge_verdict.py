"""Reading judge replies (table: cases/judge_replies.json): lenient about where the JSON sits,
strict about what it says; a reply without a valid verdict has a reason and never a default
score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.extract.judge_verdict import (
    PairVerdict,
    combine_pairwise,
    read_pairwise,
    read_pointwise,
    read_replies,
)

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "judge_replies.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_judge_reply(row: dict[str, Any]) -> None:
    pairwise = row["kind"] == "pairwise"
    reading = (read_pairwise if pairwise else read_pointwise)(row["reply"])
    if "error" in row:
        assert not reading.ok
        assert reading.score is None and reading.pair is None
        assert row["error"] in reading.error
    elif pairwise:
        assert reading.pair is not None and reading.pair.winner == row["winner"]
    else:
        assert reading.score is not None and reading.score.score == row["score"]
        assert reading.error == ""


def test_stored_replies_are_read_in_order_and_the_first_valid_one_counts() -> None:
    replies = ["no json", '{"score": 4, "correctness": 4, "completeness": 4}', '{"score": 9}']
    reading = read_replies(replies, pairwise=False)
    assert reading.score is not None and reading.score.score == 4
    assert not read_replies(["nope", "still nope"], pairwise=False).ok
    assert read_replies([], pairwise=False).error == "the judge gave no reply"


@pytest.mark.parametrize(
    ("a_first", "b_first", "outcome"),
    [
        ("1", "2", "a"),
        ("2", "1", "b"),
        ("tie", "tie", "tie"),
        ("1", "1", "inconsistent"),  # always the first: position bias, no winner
        ("2", "2", "inconsistent"),
        ("1", "tie", "inconsistent"),
    ],
)
def test_swapped_orders_must_agree(a_first: str, b_first: str, outcome: str) -> None:
    assert combine_pairwise(PairVerdict(a_first, ""), PairVerdict(b_first, "")) == outcome
