"""The live view of a run: one row per model with its bar, counts and running accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from proctor.types import Score

_NOT_SCORED = ("call_failed", "unscored")


class RunProgress:
    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[acc]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._rows: dict[str, TaskID] = {}
        self._tally: dict[str, list[int]] = {}

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
            self._tally[model] = [0, 0, 0]  # correct, scored, failed calls (this session)
            self._rows[model] = self._progress.add_task(
                model, total=done + todo, completed=done, acc=""
            )

    def on_result(self, model: str, score: Score) -> None:
        tally = self._tally[model]
        if score.outcome in _NOT_SCORED:
            tally[2] += score.outcome == "call_failed"
        else:
            tally[1] += 1
            tally[0] += score.outcome == "correct"
        acc = f"acc {100 * tally[0] / tally[1]:5.1f} %" if tally[1] else "acc   –  "
        if tally[2]:
            acc += f" · {tally[2]} failed calls"
        self._progress.update(self._rows[model], advance=1, acc=acc)
