"""The live view stays readable for many models: one bar and a grid, not a bar per model."""

from __future__ import annotations

import io

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
