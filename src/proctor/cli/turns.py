"""What `proctor dialogue` and `proctor workflow` share: asking under Ctrl-C (exit 130 with the run
to resume) and the closing lines of a run."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console

from proctor.cli.console import SafeConsole
from proctor.cli.exit_codes import EXIT_INTERRUPTED

R = TypeVar("R")


def interrupted(kind: str, started: Sequence[str], results_dir: Path) -> None:
    """One line on stderr: what was kept and the command that goes on."""
    err = SafeConsole(stderr=True)
    if not started:
        err.print(f"interrupted before the {kind} run began: nothing was stored", markup=False)
        return
    run_id = started[-1]
    err.print(
        f"interrupted: the answered turns of {kind} run {run_id} are stored in {results_dir}; "
        f"the same command (or `proctor {kind} FILE --resume {run_id}`) goes on from there",
        markup=False,
    )


def print_run_end(console: Console, run_id: str, written: Path, *, failed: str = "") -> None:
    """The run's id and file; when a call failed, how to ask it again (`failed`: turn or step)."""
    console.print(f"run {run_id} · written {written}", markup=False)
    if failed:
        console.print(f"  the same command (or --resume {run_id}) asks the failed {failed} again")


def ask_or_interrupted(
    kind: str, results_dir: Path, go: Callable[[list[str]], Coroutine[Any, Any, R]]
) -> R:
    """`asyncio.run(go(started))`; on Ctrl-C, say what was kept and exit 130."""
    started: list[str] = []
    try:
        import asyncio  # here: `proctor --help` imports this module and needs none of it

        return asyncio.run(go(started))
    except KeyboardInterrupt:
        interrupted(kind, started, results_dir)
        raise typer.Exit(EXIT_INTERRUPTED) from None
