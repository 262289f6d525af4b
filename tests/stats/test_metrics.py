from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from proctor.stats import ranked, summarize, wilson_interval
from proctor.types import OUTCOMES, GradedItem, Outcome

MakeItem = Callable[..., GradedItem]


def test_failed_calls_and_unscored_leave_the_denominator(make_item: MakeItem) -> None:
    outcomes: list[Outcome] = [
        "correct",
        "correct",
        "correct",
        "wrong",
        "call_failed",
        "call_failed",
        "unscored",
    ]
    m = summarize([make_item("m", o) for o in outcomes]).model("m")
    assert (m.n_items, m.n_scored, m.correct) == (7, 4, 3)
    assert m.accuracy == 0.75
    assert (m.ci_low, m.ci_high) == wilson_interval(3, 4)
    assert m.outcomes["call_failed"] == 2
    assert m.outcomes["unscored"] == 1


@pytest.mark.parametrize("against", ["wrong", "no_answer", "truncated", "violation", "refused"])
def test_every_other_outcome_counts_against(make_item: MakeItem, against: Outcome) -> None:
    m = summarize([make_item("m", "correct"), make_item("m", against)]).model("m")
    assert (m.n_scored, m.correct, m.accuracy) == (2, 1, 0.5)
    assert m.outcomes[against] == 1


def test_outcomes_list_every_outcome_in_order(make_item: MakeItem) -> None:
    m = summarize([make_item("m", "truncated")]).model("m")
    assert list(m.outcomes) == list(OUTCOMES)
    assert sum(m.outcomes.values()) == 1


def test_model_with_nothing_scored(make_item: MakeItem) -> None:
    m = summarize([make_item("m", "call_failed"), make_item("m", "unscored")]).model("m")
    assert (m.n_items, m.n_scored, m.correct) == (2, 0, 0)
    assert m.accuracy is None and m.ci_low is None and m.ci_high is None
    assert m.format_compliance is None
    assert m.tier == "-"
    cell = m.by_category["integer"]
    assert (cell.n, cell.accuracy, cell.ci_low) == (0, None, None)


def test_models_named_without_items_get_a_row(make_item: MakeItem) -> None:
    metrics = summarize([make_item("b", "correct")], models=["a", "b"])
    assert [m.model for m in metrics.models] == ["a", "b"]
    assert metrics.model("a").n_items == 0 and metrics.model("a").accuracy is None
    with pytest.raises(KeyError):
        metrics.model("c")


def test_models_keep_input_order(make_item: MakeItem) -> None:
    items = [make_item("zeta", "wrong"), make_item("alpha", "correct"), make_item("zeta", "wrong")]
    assert [m.model for m in summarize(items).models] == ["zeta", "alpha"]


def test_slices(make_item: MakeItem) -> None:
    items = [
        make_item("m", "correct", category="decimal", difficulty="hard"),
        make_item("m", "wrong", category="integer", difficulty="easy"),
        make_item("m", "correct", category="integer", difficulty="medium"),
        make_item("m", "call_failed", category="integer", difficulty="medium"),
        make_item("m", "correct", category="integer", difficulty="easy"),
        make_item("m", "wrong", category="", difficulty="odd"),
    ]
    m = summarize(items).model("m")
    assert list(m.by_category) == ["decimal", "integer", ""]
    integer = m.by_category["integer"]
    assert (integer.n, integer.correct) == (3, 2)
    assert integer.accuracy == pytest.approx(2 / 3)
    assert (integer.ci_low, integer.ci_high) == wilson_interval(2, 3)
    assert list(m.by_difficulty) == ["easy", "medium", "hard", "odd"]
    assert m.by_difficulty["medium"].n == 1
    assert m.by_difficulty["easy"].accuracy == 0.5


def test_format_compliance_retries_tokens_latency(make_item: MakeItem) -> None:
    items = [
        make_item("m", "correct", format_ok=True, attempts=1, latency_s=1.0),
        make_item("m", "wrong", format_ok=False, attempts=3, latency_s=2.0),
        make_item("m", "correct", format_ok=True, attempts=2, latency_s=3.0),
        make_item("m", "call_failed", format_ok=False, attempts=4, latency_s=60.0),
    ]
    m = summarize(items).model("m")
    assert m.format_compliance == pytest.approx(2 / 3)
    assert m.retries == 0 + 2 + 1 + 3
    assert m.mean_latency_s == pytest.approx(2.0)
    assert (m.total_prompt_tokens, m.total_completion_tokens) == (30, 15)


def _model_at(make_item: MakeItem, name: str, correct: int, wrong: int) -> list[GradedItem]:
    return [make_item(name, "correct") for _ in range(correct)] + [
        make_item(name, "wrong") for _ in range(wrong)
    ]


def test_ranking_accuracy_then_name_with_nothing_scored_last(make_item: MakeItem) -> None:
    items = [
        *_model_at(make_item, "nothing", 0, 0),
        make_item("nothing", "call_failed"),
        *_model_at(make_item, "zero", 0, 3),
        *_model_at(make_item, "b-half", 1, 1),
        *_model_at(make_item, "a-half", 2, 2),
        *_model_at(make_item, "top", 9, 1),
    ]
    metrics = summarize(items)
    assert [m.model for m in ranked(metrics)] == ["top", "a-half", "b-half", "zero", "nothing"]
    assert [m.model for m in ranked(metrics.models)] == [m.model for m in ranked(metrics)]


# The tier of a summarized model (given only when its interval lies in one tier) is in
# test_metrics_honest.py; the scale's boundaries in test_tiers.py.


def test_metrics_are_frozen(make_item: MakeItem) -> None:
    m = summarize([make_item("m", "correct")]).model("m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.accuracy = 0.0  # type: ignore[misc]
