from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from rich.cells import cell_len
from rich.console import Console

from proctor.report import render_report
from proctor.stats import summarize

from .conftest import Run, build_many, build_run


def _render(run: Run, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    render_report(run.stats, console)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


@pytest.mark.parametrize("width", [80, 200])
def test_names_and_numbers_show(run: Run, width: int) -> None:
    text = _render(run, width)
    for expected in ("openai/gpt-4o", "local/smol|lm", "75.0 %", "11.1 %", "[30.1–95.4]"):
        assert expected in text
    assert "2026-05-01T10-00-00-abc123" in text
    assert "sha256:0123456789abcdef (10 samples)" in text
    assert "max_tokens 512" in text
    assert text.count("can carry numeric work without tools") == 1
    assert "truncated" in text and "call_failed" in text
    assert "violation" not in text  # an outcome no model has gets no column
    assert all(len(line) <= width for line in text.splitlines())


def test_difficulty_rows_in_order(run: Run) -> None:
    text = _render(run, 200)
    assert text.index("easy") < text.index("medium") < text.index("hard")


def test_markup_in_names_is_not_interpreted() -> None:
    run = build_run()
    items = [
        replace(item, record=replace(item.record, model="[bold]odd[/bold]")) for item in run.items
    ]
    run = replace(run, items=items, metrics=summarize(items))
    assert "[bold]odd[/bold]" in _render(run, 200)


@pytest.mark.parametrize("width", [40, 80])
def test_empty_and_narrow_do_not_crash(width: int) -> None:
    run = build_run()
    empty = replace(run, items=[], metrics=summarize([]))
    assert "Tiers" in _render(empty, width)
    long_name = replace(run, info=replace(run.info, models=("x" * 120,)))
    assert "Ranking" in _render(long_name, width)


def _recorded(run: Run, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    render_report(run.stats, console)
    return console.export_text()


def _section(text: str, title: str) -> list[str]:
    """A table's lines under its title, up to the next title (a line opening with a letter)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1 :]:
        if line[:1].isalpha():
            break
        body.append(line)
    return body


def test_fifty_models_fit_80_columns() -> None:
    run = build_many(50, 2000)
    text = _recorded(run)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    assert "models      openai-compat/<name>@http://127.0.0.1:18555/v1" in text
    assert "@http://127.0.0.1:18555/v1" not in text.replace(
        "models      openai-compat/<name>@http://127.0.0.1:18555/v1", ""
    )  # said once, in the header
    ranking = _section(text, "Ranking")
    for i in range(1, 51):
        assert any(re.match(rf"\s*{i}\s+m{i:02d}\s", line) for line in ranking), i
    assert "2000/2000" in text and "1657/2000" in text  # counts whole, never folded
    for title, values in (
        ("Accuracy by category", ("integer", "bigint", "n=400")),
        ("Accuracy by difficulty", ("easy", "hard", "n=667")),
    ):
        table = _section(text, title)
        rows = [line for line in table if re.match(r"\s*\d+\s+m\d\d\s", line)]
        assert [line.split()[1] for line in rows] == [f"m{i:02d}" for i in range(1, 51)]
        assert all(value in "\n".join(table[:4]) for value in values)  # in the headings
    assert "Tiers" in text


def test_many_models_category_table_has_a_row_per_model() -> None:
    run = build_many(5, 40)
    table = _section(_recorded(run), "Accuracy by category")
    rows = [line for line in table if re.match(r"\s*\d+\s+m\d\d\s", line)]
    assert len(rows) == 5
    assert all(len(re.findall(r"\d+\.\d %", line)) == 5 for line in rows)  # one per category


def test_few_models_keep_a_column_each() -> None:
    run = build_many(4, 40)
    text = _recorded(run)
    head = _section(text, "Accuracy by category")[0]
    assert head.split() == ["m01", "m02", "m03", "m04"]
    assert "integer" in text and "100.0 % (n=8)" in text


def test_tier_legend_only_for_arithmetic() -> None:
    assert "Tiers" in _recorded(build_many(2, 10))
    text = _recorded(build_many(2, 10, task="gsm8k"))
    assert "Tiers" not in text and "can carry numeric work" not in text


def test_tier_column_only_for_arithmetic() -> None:
    # Tiers are the arithmetic seed's scale: elsewhere a letter with no legend would mislead.
    def heading(text: str) -> list[str]:
        return next(line for line in text.splitlines() if "accuracy" in line).split()

    assert "tier" in heading(_recorded(build_many(2, 10)))
    assert "tier" not in heading(_recorded(build_many(2, 10, task="gsm8k")))


def test_full_names_when_they_cannot_be_shortened(run: Run) -> None:
    text = _recorded(run)
    assert "openai/gpt-4o" in text and "local/smol|lm" in text
    assert "<name>" not in text


def test_slices_many_values_split_to_fit() -> None:
    run = build_run()
    items = [
        replace(item, sample=replace(item.sample, category=f"category-number-{i}"))
        for i, item in enumerate(run.items)
    ]
    models = [f"provider{i}/model-{i}" for i in range(6)]
    items = [
        replace(item, record=replace(item.record, model=model))
        for model in models
        for item in items
    ]
    text = _recorded(
        replace(run, info=replace(run.info, models=tuple(models)), items=items)
    )
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    assert "Accuracy by category (1/" in text
