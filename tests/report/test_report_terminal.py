from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console

from proctor.report import render_report
from proctor.stats import summarize

from .conftest import Run, build_run


def _render(run: Run, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    render_report(run.info, run.metrics, console)
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
    long_name = replace(run, metrics=summarize(run.items, models=["x" * 120]))
    assert "Ranking" in _render(long_name, width)
