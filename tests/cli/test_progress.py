"""The live view stays readable for many models: one bar and a grid, not a bar per model."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from proctor.cli.progress import MAX_BARS, RunProgress
from proctor.types import Score


def render(n_models: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=False, color_system=None)
    models = [f"openai-compat/m{i:02d}@http://h/v1" for i in range(n_models)]
    with RunProgress(console) as progress:
        progress.on_plan("run", {m: (0, 10) for m in models})
        for m in models:
            progress.on_result(m, Score(outcome="correct", rule="r", explanation=""))
    return out.getvalue()


def test_few_models_get_a_bar_each() -> None:
    text = render(2)
    assert text.count("1/10") == 2


def test_many_models_get_one_bar_and_a_grid() -> None:
    n = 50
    assert n > MAX_BARS
    text = render(n)
    assert f"{n} models" in text and f"{n}/{n * 10}" in text
    last = text.split(f"{n} models")[-1]
    assert last.count("1/10") == n  # every model's count, in the grid
    assert len(last.strip().splitlines()) <= n // 3 + 2


def _live(models: list[str], total: int, width: int = 80, *, fail_every: int = 0) -> str:
    """The view as last drawn, every model done, on a console `width` cells wide."""
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    with RunProgress(console) as progress:
        progress.on_plan("run", {m: (0, total) for m in models})
        right = Score(outcome="correct", rule="r", explanation="")
        failed = Score(outcome="call_failed", rule="r", explanation="")
        for m in models:
            for i in range(total):
                progress.on_result(m, failed if fail_every and i % fail_every == 0 else right)
    return console.export_text()


def _rows(text: str, title: str) -> list[str]:
    return text.split(title)[-1].strip("\n").splitlines()[1:]


def test_fifty_models_at_80_columns() -> None:
    models = [f"openai-compat/m{i:02d}@http://127.0.0.1:18555/v1" for i in range(1, 51)]
    text = _live(models, 2000)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    assert "models: openai-compat/<name>@http://127.0.0.1:18555/v1" in text
    grid = _rows(text, "50 models")
    cells = [cell for line in grid for cell in line.split("  ✓ ")]
    assert len(cells) == 50
    for i, cell in enumerate(cells, start=1):
        assert f"m{i:02d}" in cell and "2000/2000" in cell, cell
    assert "100000/100000" in text


def test_grid_keeps_counts_whole_when_labels_are_long() -> None:
    models = [
        f"openai-compat/model-{i}-with-a-very-long-name@http://host{i}.example.com:8000/v1"
        for i in range(12)
    ]
    text = _live(models, 2000, fail_every=3)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    grid = _rows(text, "12 models")
    assert len(grid) == 12  # one model to a line: a label does not fit twice
    assert all("2000/2000 100% ✗667" in line for line in grid)
    assert grid[10].startswith(
        "✓ …10-with-a-very-long-name@http://host10"
    )  # the shared start gives way


def test_bars_use_short_labels_and_fit() -> None:
    models = [f"openai-compat/m{i}@http://127.0.0.1:18555/v1" for i in range(3)]
    text = _live(models, 2000, fail_every=3)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    bars = [line for line in text.splitlines() if "2000/2000" in line]
    assert [line.split()[0] for line in bars] == ["m0", "m1", "m2"]
    assert all("acc 100.0 % ✗667" in line for line in bars)


def test_bars_with_long_labels_keep_their_counts() -> None:
    models = [
        f"openai-compat/model-{i}-long-name@http://host{i}.example.com:8000/v1" for i in range(5)
    ]
    text = _live(models, 2000, fail_every=3)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    bars = [line for line in text.splitlines() if "2000/2000 acc 100.0 % ✗667" in line]
    assert len(bars) == 5
    assert all(f"{i}-long" in line for i, line in enumerate(bars))  # the shared start gives way


def test_wide_characters_are_measured_in_cells() -> None:
    models = [f"openai-compat/模型-{i}@http://h:8000/v1" for i in range(12)]
    text = _live(models, 2000)
    assert all(cell_len(line) <= 80 for line in text.splitlines())
    grid = _rows(text, "12 models")
    assert sum(line.count("2000/2000") for line in grid) == 12
    assert "模型-11" in text
