from __future__ import annotations

import pytest

from proctor.stats.passk import pass_at_k
from proctor.stats.repeats import answer_key, repeat_metrics
from proctor.stats.scores import item_scores, scores_by_model
from proctor.types import GradedItem, Outcome, Record, Sample, Score, Usage


def reply(
    sample_id: str,
    epoch: int,
    outcome: Outcome,
    answer: str | None = None,
    *,
    model: str = "m",
    rule: str = "final_answer_line+integer_equal",
) -> GradedItem:
    failed = outcome == "call_failed"
    return GradedItem(
        Sample(id=sample_id, input="6 * 7", target="42"),
        Record(
            run_id="r",
            model=model,
            sample_id=sample_id,
            status="call_failed" if failed else "ok",
            text="",
            finish_reason="unknown" if failed else "stop",
            usage=Usage(),
            latency_s=0.0,
            attempts=1,
            prompt_variant="B",
            lang="en",
            epoch=epoch,
        ),
        Score(outcome, rule, "", extracted=answer, normalized=answer),
    )


def test_answer_key() -> None:
    assert answer_key(Score("correct", "x+integer_equal", "", "42", "42")) == "42"
    assert answer_key(Score("wrong", "x+format_only", "", "84/2", "42")) == "42 [format]"
    assert answer_key(Score("no_answer", "no_answer", "")) is None
    assert answer_key(Score("truncated", "truncated", "", "4")) is None


def test_stability_majority_and_pass_at_k() -> None:
    items = [
        # q1: stable and right
        *(reply("q1", e, "correct", "42") for e in range(4)),
        # q2: right twice, wrong twice with the same wrong answer → majority tie, first seen wins
        reply("q2", 0, "wrong", "41"),
        reply("q2", 1, "correct", "42"),
        reply("q2", 2, "correct", "42"),
        reply("q2", 3, "wrong", "41"),
        # q3: stably wrong
        *(reply("q3", e, "wrong", "7") for e in range(4)),
        # q4: no answer three times, right once → majority is the only answer given
        *(reply("q4", e, "no_answer") for e in range(3)),
        reply("q4", 3, "correct", "42"),
        # q5: every call failed → left out everywhere
        *(reply("q5", e, "call_failed") for e in range(4)),
    ]
    m = repeat_metrics(items)["m"]
    assert m.replies_per_item == 4
    assert m.n_items == 4
    assert m.stability.value == pytest.approx(2 / 4)  # q1, q3
    assert m.stability.n == 4
    assert m.majority.value == pytest.approx(2 / 4)  # q1 and q4; q2's tie goes to "41"
    assert m.accuracy.value == pytest.approx(7 / 16)
    assert m.accuracy.low is not None and m.accuracy.low < 7 / 16 < (m.accuracy.high or 0)
    assert sorted(m.pass_at) == [1, 2, 4]
    expected_2 = (pass_at_k(4, 4, 2) + pass_at_k(4, 2, 2) + 0.0 + pass_at_k(4, 1, 2)) / 4
    assert m.pass_at[2].value == pytest.approx(expected_2)
    assert m.pass_at[1].value == pytest.approx(7 / 16)
    assert m.pass_at[4].value == pytest.approx(3 / 4)


def test_same_non_answer_every_time_is_stable() -> None:
    items = [reply("q", e, "no_answer") for e in range(3)]
    m = repeat_metrics(items)["m"]
    assert m.stability.value == 1.0
    assert m.majority.value == 0.0


def test_single_reply_per_item() -> None:
    items = [reply("q1", 0, "correct", "42"), reply("q2", 0, "wrong", "1")]
    m = repeat_metrics(items)["m"]
    assert m.replies_per_item == 1
    assert m.stability.value is None and m.stability.n == 0
    assert m.majority.value == 0.5
    assert list(m.pass_at) == [1]


def test_pass_at_k_uses_only_items_with_enough_replies() -> None:
    items = [reply("q1", e, "correct", "42") for e in range(3)] + [reply("q2", 0, "wrong", "1")]
    m = repeat_metrics(items, ks=[1, 3])["m"]
    assert m.pass_at[3].n == 1 and m.pass_at[3].value == 1.0
    assert m.pass_at[1].n == 2


def test_item_scores() -> None:
    items = [
        reply("q1", 0, "correct", "42"),
        reply("q1", 1, "wrong", "41"),
        reply("q2", 0, "call_failed"),
        reply("q3", 0, "correct", "42", model="other"),
    ]
    assert item_scores(items, "m") == {"q1": 0.5}
    assert scores_by_model(items) == {"m": {"q1": 0.5}, "other": {"q3": 1.0}}
