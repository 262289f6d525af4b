"""The run's report in a terminal: header, ranked table, accuracy by category and difficulty.

Models show by their short labels (`short_names`: no shared provider or URL), the dropped part
said once in the header; past `MODEL_COLUMNS` models the slice tables turn to one row per model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, JustifyMethod, OverflowMethod
from rich.table import Table
from rich.text import Text

from proctor.report.sections import Section, result_sections
from proctor.report.terminal_fit import new_table, section_tables, terminal_labels
from proctor.report.terminal_fit import spare as _spare
from proctor.report.text import (
    NONE,
    cell_text,
    header_lines,
    interval,
    name_pattern,
    pct,
    short_names,
    shown_outcomes,
    slice_name,
    slice_values,
    tier_legend,
)
from proctor.stats.metrics import Cell, ModelMetrics
from proctor.stats.run_statistics import RunStatistics
from proctor.stats.tiers import Tier
from proctor.types import Outcome, RunInfo

MODEL_COLUMNS = 4
"""Up to this many models, the slice tables give each model a column; past it, a row."""
NAME_WIDTH = 30
"""Names stay whole up to this many cells; the narrow numeric columns give way first."""
NAME_MIN_WIDTH = 12
"""…or this many on a console too narrow for the numbers beside 30-cell names."""
VALUE_WIDTH = 10
"""A slice value's column in the one-row-per-model tables: a longer heading folds."""


def render_report(stats: RunStatistics, console: Console) -> None:
    """Print the whole report, a pure function of the run's statistics; a section only where
    the run has its data. Cells are plain `Text`: a name with brackets stays as written."""
    rows = list(stats.ranking)
    models = [m.model for m in rows]
    labels = terminal_labels(short_names(models))
    console.print(_header(stats.info, name_pattern(models)))
    if stats.suite:
        console.print(Text(f"suite {stats.suite}"))
    for table in _ranking(rows, labels, console, tiers=stats.task.tiers is not None):
        if stats.has_answers:
            console.print(table)
    if stats.task.grading_note:
        console.print(Text(stats.task.grading_note))
    if rows:
        for piece in stats.slices:
            title = f"Accuracy by {piece.key}"
            slices = [piece.cells[m] for m in models]
            if len(rows) <= MODEL_COLUMNS:
                console.print(_slices(title, rows, labels, slices))
            else:
                for table in _slices_by_model(title, rows, labels, slices, console):
                    console.print(table)
    # The run's state is said first, before the report, by `proctor` itself (`runs.state`).
    shown = [s for s in result_sections(stats) if s.key not in ("cost", "state")]
    render_sections(shown, console, labels)
    for line in cost_lines(stats, labels):
        console.print(Text(line))
    if stats.task.tiers is not None:
        console.print(Text("Tiers", style="bold"))
        console.print(_legend(stats.task.tiers))
    if stats.task.audit:
        console.print(Text(stats.task.audit, style="dim"))


def cost_lines(stats: RunStatistics, labels: Mapping[str, str]) -> list[str]:
    """Tokens and cost per model, for the answers this run asked for ("cost  …"); the answers it
    took from the response cache, and what that saved, on lines of their own ("saved …"). A
    model with no price says so."""
    if not stats.has_answers:
        return []
    unknown = {m.model: m.unknown_usage for m in stats.ranking}
    spent: list[str] = []
    saved: list[str] = []
    for m in stats.cost:
        name = labels.get(m.model, m.model)
        money = "no price" if m.cost is None else f"${m.cost:,.4f}"
        if m.batched:
            money += f" ({m.batched:,} answers asked in batches, at the batch price)"
        line = f"{name}: {m.prompt_tokens:,} prompt + {m.completion_tokens:,} completion tokens, "
        line += money
        if unknown.get(m.model):
            # a server that sent no usable counts: the sums (and the cost) are lower bounds
            line += f" (at least: {unknown[m.model]:,} answers had unknown token counts)"
        spent.append(line)
        if m.reused:
            runs = ", ".join(m.sources[:3]) + (" …" if len(m.sources) > 3 else "")
            basis = "batch" if m.saved_at_batch_price else "list"
            value = "no price" if m.saved is None else f"${m.saved:,.4f} not spent"
            value += "" if m.saved is None else f" (at the {basis} price)"
            saved.append(
                f"{name}: {m.reused:,} answers reused from the response cache (run {runs}): "
                f"{m.reused:,} calls, {m.reused_prompt_tokens:,} prompt + "
                f"{m.reused_completion_tokens:,} completion tokens, {value}"
            )
    lines = ["cost  " + "\n      ".join(spent)] if spent else []
    if saved:
        lines.append("saved " + "\n      ".join(saved))
    return lines


def render_sections(
    sections: Sequence[Section], console: Console, labels: Mapping[str, str] | None = None
) -> None:
    """Print result sections (`proctor.report.sections`), each a table and its note; a model
    in the first column by its short label (`labels`, as in the ranking)."""
    shown = terminal_labels(labels or {})
    for section in sections:
        for table in section_tables(section, shown, console):
            console.print(table)
        if section.note:
            console.print(Text(section.note, style="dim"))


def _header(info: RunInfo, pattern: str | None) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in header_lines(info):
        grid.add_row(Text(label), Text(value))
    if pattern is not None:
        grid.add_row(Text("models"), Text(pattern))
    return grid


@dataclass(frozen=True)
class _Column:
    heading: str
    cell: Callable[[ModelMetrics], str]
    justify: JustifyMethod = "right"
    no_wrap: bool = False
    overflow: OverflowMethod = "ellipsis"


_SCORES = (
    _Column("accuracy", lambda m: pct(m.accuracy), no_wrap=True),
    _Column("95 % CI", lambda m: interval(m.ci_low, m.ci_high), no_wrap=True),
    _Column("correct/scored", lambda m: f"{m.correct}/{m.n_scored}"),
    _Column("tier", lambda m: m.tier, justify="center"),
)
_FORMAT = _Column("format", lambda m: pct(m.format_compliance))
_RETRIES = _Column("retries", lambda m: str(m.retries))
_RANKING = "Ranking (95 % Wilson interval)"


def _outcome_column(outcome: Outcome) -> _Column:
    return _Column(outcome, lambda m: str(m.outcomes[outcome]))


def _ranking(
    rows: Sequence[ModelMetrics], labels: Mapping[str, str], console: Console, *, tiers: bool
) -> list[Table]:
    """One table when it fits the console; else the outcome counts move to a second table, and
    then format and retries too (rich would squeeze a column that does not fit to nothing).
    The tier column only where tiers mean something (the arithmetic seed's scale)."""
    outcomes = [_outcome_column(o) for o in shown_outcomes(rows)]
    scores = [c for c in _SCORES if tiers or c.heading != "tier"]
    layouts: list[list[tuple[str, Sequence[_Column]]]] = [
        [(_RANKING, [*scores, _FORMAT, *outcomes, _RETRIES])],
        [(_RANKING, [*scores, _FORMAT, _RETRIES]), ("Outcomes", outcomes)],
        [(_RANKING, scores), ("Outcomes", [_FORMAT, *outcomes, _RETRIES])],
    ]
    longest = max((cell_len(labels[m.model]) for m in rows), default=5)
    ranked = list(enumerate(rows, start=1))
    spares: list[int] = []
    # Names whole if some layout allows it; else folded at NAME_WIDTH, a table that fits so
    # giving its spare cells back to the names. Each try measures only the widest rows.
    for width in dict.fromkeys((longest, min(longest, NAME_WIDTH))):
        for layout in layouts:
            spares = [
                _spare(
                    console,
                    _table(title, widest_rows(ranked, labels, columns), labels, columns, width),
                )
                for title, columns in layout
            ]
            if all(spare >= 0 for spare in spares):
                return [
                    _table(title, ranked, labels, columns, width + spare)
                    for (title, columns), spare in zip(layout, spares, strict=True)
                ]
    # Not even that fits: the names fold narrower still, down to NAME_MIN_WIDTH.
    return [
        _table(title, ranked, labels, columns, max(NAME_MIN_WIDTH, NAME_WIDTH + spare))
        for (title, columns), spare in zip(layouts[-1], spares, strict=True)
    ]


def _cells(
    rank: int, m: ModelMetrics, labels: Mapping[str, str], columns: Sequence[_Column]
) -> list[str]:
    return [str(rank), labels[m.model], *(c.cell(m) for c in columns)]


def _width(cell: str) -> int:
    """The cells `cell` takes unwrapped: its longest line (what rich measures a Text by)."""
    return max((cell_len(line) for line in cell.splitlines()), default=0)


def widest_rows(
    ranked: Sequence[tuple[int, ModelMetrics]],
    labels: Mapping[str, str],
    columns: Sequence[_Column],
) -> list[tuple[int, ModelMetrics]]:
    """The rows holding the widest cell of some column, in order: a table of only these is as
    wide unwrapped as one of all (each column is as wide as its widest cell), and measuring it
    costs a few rows, not one per model (50 models: most of the terminal report's time)."""
    if not ranked:
        return []
    table = [_cells(rank, m, labels, columns) for rank, m in ranked]
    keep = {
        max(range(len(table)), key=lambda row: _width(table[row][column]))
        for column in range(len(table[0]))
    }
    return [ranked[row] for row in sorted(keep)]


def _name_column(
    table: Table, rows: Sequence[ModelMetrics], labels: Mapping[str, str], width: int
) -> None:
    """Names whole up to `width` cells, folded past it."""
    longest = max((cell_len(labels[m.model]) for m in rows), default=5)
    table.add_column(
        "model", overflow="fold", min_width=min(longest, NAME_WIDTH, width), max_width=width
    )


def _table(
    title: str,
    ranked: Sequence[tuple[int, ModelMetrics]],
    labels: Mapping[str, str],
    columns: Sequence[_Column],
    name_width: int,
) -> Table:
    table = new_table(title)
    table.add_column("#", justify="right", no_wrap=True)
    _name_column(table, [m for _, m in ranked], labels, name_width)
    for c in columns:
        table.add_column(c.heading, justify=c.justify, no_wrap=c.no_wrap, overflow=c.overflow)
    for rank, m in ranked:
        table.add_row(*(Text(cell) for cell in _cells(rank, m, labels, columns)))
    return table


def _slices(
    title: str,
    rows: Sequence[ModelMetrics],
    labels: Mapping[str, str],
    slices: Sequence[Mapping[str, Cell]],
) -> Table:
    """One column per model, one row per slice value (few models)."""
    table = new_table(title)
    table.add_column("", overflow="fold")
    for m in rows:
        # a cell ("35.0 % (n=20)") on one line; a heading longer than the column folds
        table.add_column(Text(labels[m.model]), justify="right", no_wrap=True, overflow="fold")
    for value in slice_values(slices):
        cells = (Text(cell_text(by.get(value))) for by in slices)
        table.add_row(Text(slice_name(value)), *cells)
    return table


def _counted(value: str, slices: Sequence[Mapping[str, Cell]]) -> str:
    """A slice value's column heading with its denominators: "integer\nn=400" (or "n=380–400")."""
    ns = sorted({by[value].n for by in slices if value in by and by[value].accuracy is not None})
    if not ns:
        return slice_name(value)
    n = f"n={ns[0]}" if len(ns) == 1 else f"n={ns[0]}–{ns[-1]}"
    return f"{slice_name(value)}\n{n}"


def _slices_by_model(
    title: str,
    rows: Sequence[ModelMetrics],
    labels: Mapping[str, str],
    slices: Sequence[Mapping[str, Cell]],
    console: Console,
) -> list[Table]:
    """One row per model, one column per slice value, the n in the heading (many models). As
    many columns as fit the console; the rest go to a further table."""
    values = slice_values(slices)

    def build(part: Sequence[str], heading: str, name_width: int = NAME_WIDTH) -> Table:
        table = new_table(heading)
        table.add_column("#", justify="right", no_wrap=True)
        _name_column(table, rows, labels, name_width)
        for value in part:
            table.add_column(
                Text(_counted(value, slices)),
                justify="right",
                overflow="fold",
                max_width=VALUE_WIDTH,
            )
        for rank, (m, by) in enumerate(zip(rows, slices, strict=True), start=1):
            cells = [pct(by[v].accuracy) if v in by else NONE for v in part]
            table.add_row(Text(str(rank)), Text(labels[m.model]), *(Text(c) for c in cells))
        return table

    parts: list[list[str]] = []
    rest = list(values)
    while rest:
        take = len(rest)
        while take > 1 and _spare(console, build(rest[:take], title)) < 0:
            take -= 1
        parts.append(rest[:take])
        rest = rest[take:]
    tables: list[Table] = []
    for i, part in enumerate(parts, start=1):
        heading = title if len(parts) == 1 else f"{title} ({i}/{len(parts)})"
        spare = max(0, _spare(console, build(part, heading)))
        tables.append(build(part, heading, NAME_WIDTH + spare))
    return tables


def _legend(tiers: Sequence[Tier]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column()
    for name, bounds, label in tier_legend(tiers):
        grid.add_row(Text(name), Text(bounds), Text(label))
    return grid
