"""Fitting the terminal's tables to the console (80 columns and up): a model's label on one line
(its URL without the scheme, cut to its end past `LABEL_WIDTH` cells), a number and its
interval never broken across lines (the interval goes under the number, whole), and a table too
wide for the console split by columns into several, each repeating the model column."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from proctor.report.sections import Section

LABEL_WIDTH = 30
"""A model's URL is shortened to keep its label within this many cells (its name never is)."""


def terminal_label(label: str, width: int = LABEL_WIDTH) -> str:
    """A label's URL shortened so that it does not wrap: without its scheme
    ("m@http://10.0.0.5:8000/v1" → "m@10.0.0.5:8000/v1"); past `width` cells, the URL's end only
    ("m@…8000/v1"), else "@…" (the whole URL is in the run's files and `proctor list runs`). The
    model's own name is never cut."""
    for scheme in ("@https://", "@http://"):
        label = label.replace(scheme, "@")
    if cell_len(label) <= width:
        return label
    name, at, url = label.partition("@")
    if not at:
        return label
    room = width - cell_len(name) - 2
    if room >= 6:
        return f"{name}@…{url[len(url) - room :]}"
    return name + "@…"


def terminal_labels(labels: Mapping[str, str]) -> dict[str, str]:
    """`terminal_label` of each; a label that would then read as another's stays whole."""
    out = {model: terminal_label(label) for model, label in labels.items()}
    seen: dict[str, int] = {}
    for short in out.values():
        seen[short] = seen.get(short, 0) + 1
    return {m: (s if seen[s] == 1 else labels[m]) for m, s in out.items()}


def new_table(title: str) -> Table:
    """A light table with no outer frame: the fewest characters spent on lines (80 columns)."""
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )


def spare(console: Console, table: Table) -> int:
    """Cells left on a console line by the table drawn unwrapped (< 0: too wide)."""
    unbounded = console.options.update_width(1_000_000)
    return console.width - Measurement.get(console, unbounded, table).maximum


def _stacked(cell: str) -> str:
    """ "35.0 % [20.1–52.3]" → the number over its interval, each line whole."""
    return cell.replace(" [", "\n[")


def _widest(section: Section, column: int) -> int:
    return max(
        (cell_len(line) for row in section.rows for line in _stacked(row[column]).splitlines()),
        default=1,
    )


def _heading(heading: str, width: int) -> str:
    """A number column's heading folded at its words to the numbers' width (its longest word
    whole): the heading never makes the column wider than its numbers need."""
    longest = max((cell_len(w) for w in heading.split()), default=1)
    return "\n".join(textwrap.wrap(heading, width=max(width, longest))) or heading


def section_tables(section: Section, labels: Mapping[str, str], console: Console) -> list[Table]:
    """A section as one table, or as several when its columns do not fit the console side by
    side: numbers never wrap; text columns (names, notes) fold only when a lone column still
    does not fit."""
    columns = list(range(1, len(section.head)))

    def build(part: Sequence[int], title: str, fold: bool = True) -> Table:
        table = new_table(title)
        first = section.head[0]
        table.add_column(first, justify="left", overflow="fold")
        for i in part:
            text = i in section.text_columns
            table.add_column(
                section.head[i]
                if text or not fold
                else _heading(section.head[i], _widest(section, i)),
                justify="left" if text else "right",
                no_wrap=not text,
                overflow="fold" if text else "ellipsis",
            )
        for row in section.rows:
            name = labels.get(row[0], row[0]) if 0 in section.text_columns else row[0]
            cells = (row[i] if i in section.text_columns else _stacked(row[i]) for i in part)
            table.add_row(Text(name), *(Text(c) for c in cells))
        return table

    parts: list[list[int]] = []
    rest = columns
    while rest:
        take = len(rest)
        while take > 1 and spare(console, build(rest[:take], section.title)) < 0:
            take -= 1
        parts.append(rest[:take])
        rest = rest[take:]
    if not parts:
        return [build([], section.title)]
    titles = [section.title] if len(parts) == 1 else [
        f"{section.title} ({n}/{len(parts)})" for n in range(1, len(parts) + 1)
    ]
    return [_whole_headings_if_they_fit(build, part, title, console)
            for part, title in zip(parts, titles, strict=True)]  # fmt: skip


def _whole_headings_if_they_fit(
    build: Callable[[Sequence[int], str, bool], Table],
    part: Sequence[int],
    title: str,
    console: Console,
) -> Table:
    """A wide console shows headings whole; they fold to their numbers' width only where the
    table would not fit otherwise."""
    whole = build(part, title, False)
    return whole if spare(console, whole) >= 0 else build(part, title, True)
