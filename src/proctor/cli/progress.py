"""The live view of a run: one row per model with its bar, counts and running accuracy; past
`MAX_BARS` models, one overall bar and a compact grid of per-model counts (50 bars do not fit a
terminal). Updates only change counters; rich redraws at its own refresh rate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import TracebackType

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from proctor.types import Score

_NOT_SCORED = ("call_failed", "unscored")
MAX_BARS = 8
GRID_COLUMNS = 3


class _Tally:
    __slots__ = ("correct", "done", "failed", "scored", "total")

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        self.correct = self.scored = self.failed = 0  # this session

    def acc(self) -> str:
        text = f"acc {100 * self.correct / self.scored:5.1f} %" if self.scored else "acc   –  "
        if self.failed:
            text += f" · {self.failed} failed calls"
        return text


class _GridProgress(Progress):
    """A Progress that draws, under its bars, a grid of per-model counts."""

    grid: Mapping[str, _Tally] = {}

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        if not self.grid:
            return
        table = Table.grid(padding=(0, 2))
        for _ in range(GRID_COLUMNS):
            table.add_column(no_wrap=True, max_width=28, overflow="ellipsis")
            table.add_column(justify="right", no_wrap=True)
            table.add_column(no_wrap=True)
        cells: list[str] = []
        for model, t in self.grid.items():
            mark = "✓" if t.done >= t.total else " "
            short = f"{100 * t.correct / t.scored:.0f}%" if t.scored else "–"
            short += f" ✗{t.failed}" if t.failed else ""
            cells += [f"{mark} {model}", f"{t.done}/{t.total}", short]
        width = 3 * GRID_COLUMNS
        cells += [""] * (-len(cells) % width)
        for i in range(0, len(cells), width):
            table.add_row(*cells[i : i + width])
        yield table


class RunProgress:
    def __init__(self, console: Console) -> None:
        self._progress = _GridProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[acc]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            refresh_per_second=4,
        )
        self._rows: dict[str, TaskID] = {}
        self._tally: dict[str, _Tally] = {}
        self._overall: TaskID | None = None

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def on_plan(self, run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
        for model, (done, todo) in counts.items():
            self._tally[model] = _Tally(done, done + todo)
        if len(counts) > MAX_BARS:
            done = sum(t.done for t in self._tally.values())
            total = sum(t.total for t in self._tally.values())
            self._overall = self._progress.add_task(
                f"{len(counts)} models", total=total, completed=done, acc=""
            )
            self._progress.grid = self._tally
            return
        for model, t in self._tally.items():
            self._rows[model] = self._progress.add_task(
                model, total=t.total, completed=t.done, acc=""
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
