"""The live view of a run: one row per model with its bar, counts and running accuracy; past
`MAX_BARS` models, one overall bar and a compact grid of per-model counts (50 bars do not fit a
terminal), as many to a line as the width allows. Models show by their short labels (no shared
provider or URL; the dropped part is said once above). Updates only change counters; rich
redraws at its own refresh rate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Self

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from proctor._util.closing import Closing
from proctor.report.text import names_line, short_names
from proctor.types import Score

_NOT_SCORED = ("call_failed", "unscored")
MAX_BARS = 8
GRID_COLUMNS = 6
"""At most this many models to a line of the grid; fewer where the width does not allow."""
GAP = 2
MIN_BAR = 10
MIN_LABEL = 12
TIME_WIDTH = 8


class _Tally:
    __slots__ = ("correct", "done", "failed", "scored", "total")

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        self.correct = self.scored = self.failed = 0  # this session

    def acc(self) -> str:
        text = f"acc {100 * self.correct / self.scored:5.1f} %" if self.scored else "acc   –  "
        return text + (f" ✗{self.failed}" if self.failed else "")

    def short(self) -> str:
        text = f"{100 * self.correct / self.scored:.0f}%" if self.scored else "–"
        return text + (f" ✗{self.failed}" if self.failed else "")


def fit(label: str, width: int) -> str:
    """The label in at most `width` cells: whole, or its start and end about an ellipsis (the
    part that tells models apart may sit at either end)."""
    if cell_len(label) <= width:
        return label
    if width <= 1:
        return "…"[:width]
    head_width = width // 2
    head = set_cell_size(label, head_width).rstrip()
    tail = ""
    for char in reversed(label):
        if cell_len(head) + 1 + cell_len(char + tail) > width:
            break
        tail = char + tail
    return f"{head}…{tail}"


def _shared(names: list[str]) -> int:
    """How many characters all the names start with."""
    if len(names) < 2:
        return 0
    shortest = min(len(n) for n in names)
    i = 0
    while i < shortest and all(n[i] == names[0][i] for n in names):
        i += 1
    return i


def fit_all(labels: Mapping[str, str], width: int) -> dict[str, str]:
    """Each label in at most `width` cells, cut where labels agree: first the start that all
    share ("…0-long-name@http://host0.example.com:8000/v1"), then also the shared end, then the
    middle of what is left (`fit`)."""
    names = list(dict.fromkeys(labels.values()))
    head = _shared(names)
    tail = _shared([n[::-1] for n in names])
    out: dict[str, str] = {}
    for model, label in labels.items():
        start, end = head, len(label) - tail
        if start >= end:  # the shared start and end overlap in this label: use neither
            start, end = 0, len(label)
        before = "…" if start else ""
        after = "…" if end < len(label) else ""
        candidates = [label, before + label[start:], before + label[start:end] + after]
        fitting = [c for c in candidates if cell_len(c) <= width]
        if fitting:
            out[model] = fitting[0]
        else:
            room = width - len(before) - len(after)
            core = fit(label[start:end], room) if room > 1 else ""
            out[model] = before + core + after if core else fit(label, width)
    return out


class _Grid:
    """Per-model counts, as many models to a line as the width allows. Counts are never cut:
    a label too long for even one model to a line loses its middle."""

    def __init__(self, tally: Mapping[str, _Tally], labels: Mapping[str, str]) -> None:
        self.tally, self.labels = tally, labels

    def lines(self, width: int) -> list[str]:
        if not self.tally:
            return []
        counts = max(len(f"{t.total}/{t.total}") for t in self.tally.values())
        shorts = {model: t.short() for model, t in self.tally.items()}
        short = max(4, *(cell_len(s) for s in shorts.values()))
        fixed = 2 + GAP + counts + 1 + short  # "✓ " label "  " counts " " short
        label = max(1, min(max(cell_len(v) for v in self.labels.values()), width - fixed))
        per_line = max(1, min(GRID_COLUMNS, (width + GAP) // (fixed + label + GAP)))
        names = fit_all(self.labels, label)
        cells = []
        for model, t in self.tally.items():
            mark = "✓" if t.done >= t.total else " "
            name = names[model]
            name += " " * (label - cell_len(name))
            done = f"{t.done}/{t.total}"
            tail = shorts[model] + " " * (short - cell_len(shorts[model]))
            cells.append(f"{mark} {name}{' ' * GAP}{done:>{counts}} {tail}")
        return [
            (" " * GAP).join(cells[i : i + per_line]).rstrip()
            for i in range(0, len(cells), per_line)
        ]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield Text(line, no_wrap=True, overflow="crop")


def _label_room(width: int, total: int) -> int:
    """Cells left for a model's label on a bar row: what the counts, "acc 100.0 % ✗N", the two
    times, the bar at its narrowest and the gaps leave (at least `MIN_LABEL`)."""
    counts = 2 * len(str(total)) + 1
    acc = len("acc 100.0 % ✗") + len(str(total))
    return max(MIN_LABEL, width - (counts + acc + 2 * TIME_WIDTH + MIN_BAR + 5))


class _GridProgress(Progress):
    """A Progress that draws, above its bars, what the short labels left out and, under them, a
    grid of per-model counts."""

    note: str | None = None
    grid: _Grid | None = None

    def get_renderables(self) -> Iterable[RenderableType]:
        if self.note:
            yield Text(self.note, overflow="fold")
        yield from super().get_renderables()
        if self.grid is not None:
            yield self.grid


class RunProgress(Closing):
    def __init__(self, console: Console) -> None:
        # All but the bar keep to one line: on a narrow console the bar gives way, not the counts.
        self._progress = _GridProgress(
            TextColumn("[bold]{task.description}", table_column=Column(no_wrap=True)),
            BarColumn(),
            MofNCompleteColumn(table_column=Column(no_wrap=True)),
            TextColumn("{task.fields[acc]}", table_column=Column(no_wrap=True)),
            TimeElapsedColumn(table_column=Column(no_wrap=True)),
            TimeRemainingColumn(table_column=Column(no_wrap=True)),
            console=console,
            transient=False,
            refresh_per_second=4,
        )
        self._rows: dict[str, TaskID] = {}
        self._tally: dict[str, _Tally] = {}
        self._overall: TaskID | None = None

    def __enter__(self) -> Self:
        self._progress.start()
        return super().__enter__()

    def close(self) -> None:
        self._progress.stop()

    def on_plan(self, run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
        for model, (done, todo) in counts.items():
            self._tally[model] = _Tally(done, done + todo)
        labels = short_names(list(self._tally))
        self._progress.note = names_line(list(self._tally))
        if len(counts) > MAX_BARS:
            done = sum(t.done for t in self._tally.values())
            total = sum(t.total for t in self._tally.values())
            self._overall = self._progress.add_task(
                f"{len(counts)} models", total=total, completed=done, acc=""
            )
            self._progress.grid = _Grid(self._tally, labels)
            return
        room = _label_room(self._progress.console.width, max(t.total for t in self._tally.values()))
        fitted = fit_all(labels, room)
        for model, t in self._tally.items():
            self._rows[model] = self._progress.add_task(
                escape(fitted[model]), total=t.total, completed=t.done, acc=""
            )

    def on_result(self, model: str, score: Score) -> None:
        t = self._tally[model]
        t.done += 1
        if score.outcome in _NOT_SCORED:
            t.failed += score.outcome == "call_failed"
        else:
            t.scored += 1
            t.correct += score.outcome == "correct"
        if self._overall is not None:
            self._progress.advance(self._overall)
        else:
            self._progress.update(self._rows[model], advance=1, acc=t.acc())
