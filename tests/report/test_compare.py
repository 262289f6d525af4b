from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rich.console import Console

from proctor.report.compare import comparison_markdown, render_comparison
from proctor.stats.comparison import RunComparison, Side, compare_runs, side_labels
from proctor.types import Sample
from support.compare_runs import SAMPLES, Answer, graded, info, records, right, wrong_from

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _compare(
    answer_a: Answer,
    answer_b: Answer,
    *,
    samples_b: Sequence[Sample] = SAMPLES,
    model_b: str = "B",
) -> RunComparison:
    info_a = info("run-a", ["A"], SAMPLES)
    info_b = info("run-b", [model_b], samples_b)
    items_a = graded(records("run-a", "A", SAMPLES, answer_a), SAMPLES)
    items_b = graded(records("run-b", model_b, samples_b, answer_b), samples_b)
    return compare_runs(items_a, items_b, Side("A", "A", info_a), Side(model_b, model_b, info_b))


def _text(c: RunComparison, show: int = 20) -> str:
    console = Console(width=200, record=True, color_system=None)
    render_comparison(c, console, show=show)
    return console.export_text()


def test_b_significantly_worse() -> None:
    c = _compare(wrong_from(38), wrong_from(26))
    assert c.paired.n == 40 and c.paired.a_only == 12 and c.paired.b_only == 0
    assert c.b_significantly_worse
    assert len(c.regressions) == 12 and not c.improvements
    assert [f.sample.id for f in c.regressions] == [s.id for s in SAMPLES[26:38]]
    assert c.regressions[0].score_a == 1.0 and c.regressions[0].score_b == 0.0
    assert c.same_dataset and not c.mismatched and c.only_a == c.only_b == 0
    text = _text(c)
    assert "A better than B by 30.0 points" in text
    assert "Regressions: A higher than B (12 items)" in text
    assert "dropped_or_extra_digit" in text


def test_b_better_is_not_a_regression() -> None:
    c = _compare(wrong_from(20), right)
    assert c.paired.significant and not c.b_significantly_worse
    assert len(c.improvements) == 20
    assert "B better than A by 50.0 points" in c.paired.verdict()


def test_not_distinguishable_says_how_many_items_are_needed() -> None:
    c = _compare(wrong_from(30), wrong_from(28))
    assert not c.paired.significant and not c.b_significantly_worse
    text = _text(c)
    assert "not distinguishable on these 40 items" in text
    assert "items for 80 % power" in text


def test_failed_calls_are_left_out_not_counted_wrong() -> None:
    def flaky(i: int, s: Sample) -> str | None:
        return None if i % 4 == 0 else s.target

    c = _compare(right, flaky)
    assert c.unscored_b == 10 and c.paired.n == 30
    assert c.paired.difference == 0 and not c.regressions
    assert "a failed call is never a wrong answer" in _text(c)


def test_different_test_sets_compare_only_common_ids() -> None:
    other = [*SAMPLES[10:], replace(SAMPLES[0], id="new-0")]
    other[0] = replace(other[0], target="123456789")  # same id, other question
    c = _compare(right, right, samples_b=other)
    assert not c.same_dataset
    assert c.common_ids == 30 and c.only_a == 10 and c.only_b == 1
    assert c.mismatched == (SAMPLES[10].id,)
    assert c.paired.n == 29
    text = _text(c)
    assert "different test sets" in text
    assert SAMPLES[10].id in text


def test_show_limits_the_listing() -> None:
    c = _compare(right, wrong_from(10))
    text = _text(c, show=5)
    assert "… and 25 more" in text


def test_markdown_tables_are_whole_and_names_escaped() -> None:
    c = _compare(wrong_from(38), wrong_from(26), model_b="local/smol|lm")
    text = comparison_markdown(c)
    assert text.startswith("## proctor compare: A vs local/smol\\|lm")
    assert "❌ **A better than local/smol\\|lm by 30.0 points" in text
    assert "<summary>Regressions (A higher than B): 12</summary>" in text
    columns = None
    for line in text.splitlines():
        if not line.startswith("|"):
            columns = None
            continue
        cells = len(UNESCAPED_PIPE.findall(line))
        columns = cells if columns is None else columns
        assert cells == columns, line


def test_side_labels() -> None:
    assert side_labels("a", "b", "r1", "r2") == ("a", "b")
    assert side_labels("m", "m", "r1", "r2") == ("m (r1)", "m (r2)")
