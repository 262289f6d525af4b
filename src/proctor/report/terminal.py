"""The run's report in a terminal: header, ranked table, accuracy by category and difficulty."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from proctor.report.text import (
    cell_text,
    header_lines,
    interval,
    pct,
    shown_outcomes,
    slice_name,
    slice_values,
    tier_legend,
)
from proctor.stats.metrics import Cell, ModelMetrics, RunMetrics, ranked
from proctor.types import Outcome, RunInfo


def render_report(info: RunInfo, metrics: RunMetrics, console: Console) -> None:
    """Print the whole report. Cells are plain `Text`: a name with brackets stays as written."""
    rows = ranked(metrics)
    console.print(_header(info))
    for table in _ranking(rows, console):
        console.print(table)
    if rows:
        console.print(_slices("Accuracy by category", rows, [m.by_category for m in rows]))
        console.print(_slices("Accuracy by difficulty", rows, [m.by_difficulty for m in rows]))
    console.print(Text("Tiers", style="bold"))
    console.print(_legend())


def _header(info: RunInfo) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in header_lines(info):
        grid.add_row(Text(label), Text(value))
    return grid


def _ranking(rows: Sequence[ModelMetrics], console: Console) -> list[Table]:
    """One table when it fits the console; else the outcome counts move to a second table."""
    outcomes = shown_outcomes(rows)
    whole = _table("Ranking (95 % Wilson interval)", rows, outcomes, with_scores=True)
    unbounded = console.options.update_width(1_000_000)
    if Measurement.get(console, unbounded, whole).maximum <= console.width:
        return [whole]
    return [
        _table("Ranking (95 % Wilson interval)", rows, [], with_scores=True),
        _table("Outcomes", rows, outcomes, with_scores=False),
    ]


def _table(
    title: str, rows: Sequence[ModelMetrics], outcomes: Sequence[Outcome], *, with_scores: bool
) -> Table:
    table = _new_table(title)
    table.add_column("#", justify="right", no_wrap=True)
    # Names stay whole up to 30 characters; the narrow numeric columns give way first.
    longest = max((len(m.model) for m in rows), default=5)
    table.add_column("model", overflow="fold", min_width=min(longest, 30))
    if with_scores:
        table.add_column("accuracy", justify="right", no_wrap=True)
        table.add_column("95 % CI", justify="right", overflow="fold")
        table.add_column("correct / scored", justify="right")
        table.add_column("tier", justify="center")
        table.add_column("format", justify="right")
    for outcome in outcomes:
        table.add_column(outcome, justify="right")
    if with_scores:
        table.add_column("retries", justify="right")
    for rank, m in enumerate(rows, start=1):
        cells = [str(rank), m.model]
        if with_scores:
            cells += [
                pct(m.accuracy),
                interval(m.ci_low, m.ci_high),
                f"{m.correct}/{m.n_scored}",
                m.tier,
                pct(m.format_compliance),
            ]
        cells += [str(m.outcomes[outcome]) for outcome in outcomes]
        if with_scores:
            cells.append(str(m.retries))
        table.add_row(*(Text(cell) for cell in cells))
    return table


def _slices(title: str, rows: Sequence[ModelMetrics], slices: list[Mapping[str, Cell]]) -> Table:
    table = _new_table(title)
    table.add_column("", overflow="fold")
    for m in rows:
        table.add_column(Text(m.model), justify="right", overflow="fold")
    for value in slice_values(slices):
        cells = (Text(cell_text(by.get(value))) for by in slices)
        table.add_row(Text(slice_name(value)), *cells)
    return table


def _new_table(title: str) -> Table:
    """A light table with no outer frame: the fewest characters spent on lines (80 columns)."""
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )


def _legend() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column()
    for name, bounds, label in tier_legend():
        grid.add_row(Text(name), Text(bounds), Text(label))
    return grid
