"""The ranking table's layout is chosen by measuring only its widest rows (`widest_rows`): the
report must be exactly the one that measuring every row gives, at every width, whatever the
labels (wide characters, tabs, line breaks, long names)."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest
from rich.console import Console

from proctor.report import terminal
from proctor.report.terminal import render_report
from proctor.stats.run_statistics import RunStatistics

from .conftest import build_many

NAMES = ("m", "模型-大", "x" * 45, "a\nb", "tab\tname", "ünïcødé-🙂", "openai/gpt-4o",
         "very-long-model-name-with-many-parts-v2")  # fmt: skip


def _render(stats: RunStatistics, width: int) -> str:
    out = io.StringIO()
    render_report(stats, Console(file=out, width=width))
    return out.getvalue()


def _named(stats: RunStatistics, seed: int) -> RunStatistics:
    rng = random.Random(seed)
    names = [rng.choice(NAMES) + str(i) for i in range(len(stats.ranking))]
    ranking = tuple(replace(m, model=n) for m, n in zip(stats.ranking, names, strict=True))
    return replace(stats, ranking=ranking, info=replace(stats.info, models=tuple(names)),
                   slices=(), paired=())  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_measuring_the_widest_rows_draws_what_measuring_all_draws(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = _named(build_many(12, 20).stats, seed)
    widths = (50, 80, 132)
    fast = [_render(stats, w) for w in widths]
    monkeypatch.setattr(terminal, "widest_rows", lambda ranked, labels, columns: list(ranked))
    assert fast == [_render(stats, w) for w in widths]


def test_fifty_models_measure_a_few_rows() -> None:
    stats = build_many(50, 20).stats
    ranked = list(enumerate(stats.ranking, start=1))
    labels = {m.model: m.model for m in stats.ranking}
    kept = terminal.widest_rows(ranked, labels, terminal._SCORES)
    assert 1 <= len(kept) <= 2 + len(terminal._SCORES)  # at most one row per column
    assert max(len(str(rank)) for rank, _ in kept) == len(str(len(ranked)))  # "50" is measured
