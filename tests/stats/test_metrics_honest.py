"""Statistics that never contradict themselves: repeated replies to one item are clustered by
item in every accuracy interval, and a tier is given only when its whole interval lies in it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from proctor.stats import summarize, wilson_interval
from proctor.stats.intervals import clustered_wilson_interval
from proctor.stats.tiers import TIERS
from proctor.types import GradedItem

from .conftest import MakeItem


def _replies(make_item: MakeItem, outcomes_per_item: list[list[str]]) -> list[GradedItem]:
    """Several replies (epochs) per item: the replies to item i share its sample."""
    out = []
    for i, outcomes in enumerate(outcomes_per_item):
        for epoch, outcome in enumerate(outcomes):
            item = make_item("m", outcome, category="c")
            sample = replace(item.sample, id=f"item-{i}")
            record = replace(item.record, sample_id=sample.id, epoch=epoch)
            out.append(replace(item, sample=sample, record=record))
    return out


def test_three_items_asked_four_times_count_for_about_three(make_item: MakeItem) -> None:
    """The issue's 0/12 with CI 0–24.2 for 3 items × 4 samples: the 12 replies are not 12
    independent items."""
    items = _replies(make_item, [["wrong"] * 4] * 3)
    m = summarize(items).model("m")
    assert (m.correct, m.n_scored) == (0, 12)
    naive = wilson_interval(0, 12)
    assert m.ci_high is not None and m.ci_high > naive[1] + 0.2  # ~0.56 with 3 clusters
    assert (m.ci_low, m.ci_high) == clustered_wilson_interval(
        [False] * 12, [0] * 4 + [1] * 4 + [2] * 4
    )
    assert m.by_category["c"].ci_high == m.ci_high  # the slices are clustered alike


def test_one_reply_per_item_keeps_the_plain_wilson_interval(make_item: MakeItem) -> None:
    items = [make_item("m", o) for o in ["correct"] * 7 + ["wrong"] * 3]
    m = summarize(items).model("m")
    assert (m.ci_low, m.ci_high) == wilson_interval(7, 10)


@pytest.mark.parametrize(
    ("correct", "total", "tier"),
    [(1000, 1000, "A"), (950, 1000, "A"), (800, 1000, "B"), (600, 1000, "C"), (100, 1000, "D"),
     (0, 1000, "D")],
)  # fmt: skip
def test_a_tier_whose_interval_lies_in_it(
    make_item: MakeItem, correct: int, total: int, tier: str
) -> None:
    items = [make_item("m", "correct") for _ in range(correct)]
    items += [make_item("m", "wrong") for _ in range(total - correct)]
    m = summarize(items).model("m")
    assert m.tier == tier and m.tier_label == next(t.label for t in TIERS if t.name == tier)


@pytest.mark.parametrize(("correct", "total"), [(5, 5), (89, 100), (70, 100), (12, 20)])
def test_a_tier_is_withheld_when_the_interval_spans_two(
    make_item: MakeItem, correct: int, total: int
) -> None:
    """Tier A on 5 items (CI 56.6–100) was the issue's example: now withheld, with why."""
    items = [make_item("m", "correct") for _ in range(correct)]
    items += [make_item("m", "wrong") for _ in range(total - correct)]
    m = summarize(items).model("m")
    assert m.tier == "?"
    assert m.tier_label.startswith("withheld: the 95 % interval") and "spans tiers" in m.tier_label


def test_a_task_without_a_scale_has_no_tier(make_item: MakeItem) -> None:
    m = summarize([make_item("m", "correct")] * 3, tiers=None).model("m")
    assert (m.tier, m.tier_label) == ("", "")


def test_nothing_scored_has_no_tier(make_item: MakeItem) -> None:
    m = summarize([make_item("m", "call_failed")]).model("m")
    assert m.tier == "-"
