"""summary.md's statistics sections: paired verdicts, repeated samples, error taxonomy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from proctor.report.markdown import summary_markdown
from support.compare_runs import SAMPLES, Answer, graded, info, records, right, wrong_from
from support.run_stats import statistics

from .conftest import build_run


def _summary(answers: dict[str, Callable[[int], Answer]], epochs: int = 1) -> str:
    items = []
    for model, answer in answers.items():
        for epoch in range(epochs):
            recs = [replace(r, epoch=epoch) for r in records("run", model, SAMPLES, answer(epoch))]
            items += graded(recs, SAMPLES)
    run = info("run", list(answers), SAMPLES)
    return summary_markdown(statistics(run, items, {}))


def test_paired_verdicts_down_the_ranking_holm_adjusted() -> None:
    text = _summary(
        {
            "small": lambda e: wrong_from(20),
            "big": lambda e: right,
            "mid": lambda e: wrong_from(38),
        }
    )
    section = text.split("### Paired comparisons")[1].split("###")[0]
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(lines) == 2
    assert lines[0].startswith("- ➖ big and mid not distinguishable on these 40 items")
    assert lines[1].startswith("- ✅ mid better than small by 45.0 points")
    assert "(Holm-adjusted)" in lines[1]
    assert "Holm-adjusted over the 2 comparisons" in section


def test_taxonomy_section() -> None:
    text = _summary({"a": lambda e: wrong_from(30), "b": lambda e: right})
    section = text.split("### Wrong numeric answers by kind")[1].split("###")[0]
    assert "| kind | b | a | rule |" in section  # ranked order
    assert "| dropped\\_or\\_extra\\_digit |" not in section  # class names are plain words
    assert "| dropped_or_extra_digit | " in section


def test_repeats_only_when_items_were_asked_several_times() -> None:
    once = _summary({"a": lambda e: right, "b": lambda e: wrong_from(30)})
    assert "### Repeated samples" not in once
    # epoch 0 right on 30, epoch 1 right on 20, epoch 2 right on 30
    thrice = _summary(
        {"a": lambda e: wrong_from(20 if e == 1 else 30), "b": lambda e: right}, epochs=3
    )
    section = thrice.split("### Repeated samples")[1].split("###")[0]
    assert (
        "| model | replies/item | accuracy (all replies) | majority vote | stability |" in section
    )
    assert "pass@1 | pass@2 | pass@3 |" in section
    row = next(line for line in section.splitlines() if line.startswith("| a |"))
    assert "| 3 | 66.7 % [" in row  # 80 of 120 replies
    assert "| 75.0 % [" in row  # majority right on 30 of 40
    # majority, stability (30 of 40 identical), pass@2 and pass@3
    assert row.count("75.0 %") == 4


def test_one_model_has_no_paired_section() -> None:
    assert "### Paired comparisons" not in _summary({"a": lambda e: right})


def test_the_report_fixture_still_renders() -> None:
    run = build_run()
    text = summary_markdown(run.stats)
    assert "### Paired comparisons" in text
    assert "not distinguishable on these 3 items" in text


def test_size_section_when_names_say_sizes() -> None:
    text = _summary(
        {
            "qwen2.5-0.5b": lambda e: wrong_from(10),
            "qwen2.5-7b": lambda e: wrong_from(30),
            "gpt-4o": lambda e: right,
        }
    )
    section = text.split("### Model size and accuracy")[1].split("###")[0]
    assert "| qwen2.5-0.5b | 500M | 25.0 % |" in section
    assert "| qwen2.5-7b | 7B | 75.0 % |" in section
    assert "points of accuracy per tenfold parameters; rank correlation ρ = 1.00" in section
    assert "Size unknown: gpt-4o." in section
    assert "### Model size and accuracy" not in _summary({"gpt-4o": lambda e: right})
