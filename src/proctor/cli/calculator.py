"""Bare vs calculator: a run that asked model M and M+calculator on the same items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rich.console import Console

from proctor.providers.registry import bare_model, with_calculator
from proctor.stats.metrics import RunMetrics, summarize
from proctor.types import GradedItem


def calculator_pairs(models: Sequence[str]) -> list[tuple[str, str]]:
    """(bare, with calculator) model strings of a run where both were asked."""
    names = set(models)
    return [(bare_model(m), m) for m in models if with_calculator(m) and bare_model(m) in names]


def calculator_metrics(items: Sequence[GradedItem], models: Sequence[str]) -> RunMetrics | None:
    """Metrics of the calculator models, named by their bare model (as the report pairs them),
    or None when the run has no bare/calculator pair."""
    pairs = calculator_pairs(models)
    if not pairs:
        return None
    bare_of = {calc: bare for bare, calc in pairs}
    renamed = [
        replace(i, record=replace(i.record, model=bare_of[i.record.model]))
        for i in items
        if i.record.model in bare_of
    ]
    return summarize(renamed, [bare for bare, _ in pairs])


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def calculator_lines(metrics: RunMetrics, calculator: RunMetrics | None) -> list[str]:
    """One line per pair: "M: bare 12.0 % → with calculator 96.0 % (gap +84.0 points)"."""
    if calculator is None:
        return []
    bare_acc = {m.model: m.accuracy for m in metrics.models}
    lines = []
    for c in calculator.models:
        b = bare_acc.get(c.model)
        gap = (
            "gap n/a"
            if b is None or c.accuracy is None
            else f"gap {(c.accuracy - b) * 100:+.1f} points"
        )
        lines.append(f"{c.model}: bare {_pct(b)} → with calculator {_pct(c.accuracy)} ({gap})")
    return lines


def print_calculator_gaps(
    metrics: RunMetrics, calculator: RunMetrics | None, console: Console
) -> None:
    for line in calculator_lines(metrics, calculator):
        console.print(line, markup=False, highlight=False)
