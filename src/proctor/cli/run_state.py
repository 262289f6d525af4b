"""How a run's end is printed: the decision (exit code, lines, the command that finishes it) is
`proctor.runs.state`'s; this module only prints it and exits. Shared by `run`, `score`,
`report` and `gate`, so that all of them say the same of the same run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from proctor._util.redact import scrubbed
from proctor.cli.console import plain
from proctor.errors import StoreError
from proctor.runs.state import state_exit

if TYPE_CHECKING:  # kept out of `proctor --help`'s imports; annotations only
    from proctor.runs.gate import Completeness, GateReport


def say_store_failed(
    err_console: Console, error: StoreError, results_dir: Path, run_id: str, again: str
) -> None:
    """The store or a report file could not be written (a full disk): one line each for what
    failed, what is kept, and the command that finishes the run once there is room."""
    err_console.print(f"[red]error:[/] {plain(scrubbed(str(error)))}", soft_wrap=True)
    err_console.print(
        f"run {run_id}: what was stored before is kept (in {plain(results_dir)}); "
        f"`{plain(again)}` finishes it",
        soft_wrap=True,
    )


def say_interrupted(err_console: Console, results_dir: Path, run_id: str | None) -> None:
    """After Ctrl-C (or SIGTERM, SIGHUP): what is stored, and the command that goes on."""
    from proctor.cli.stop_signals import interrupted_by

    if run_id is None:
        err_console.print(f"{interrupted_by()} before a run began: nothing was asked or stored")
        return
    from proctor.runs.stored import stored_answers

    stored, expected = stored_answers(results_dir, run_id)
    err_console.print(
        f"[yellow]{interrupted_by()}:[/] run {run_id} keeps the {stored:,} of {expected:,} "
        f"answers stored; `proctor run --resume {run_id}` asks the rest",
        soft_wrap=True,
    )


def exit_for(
    err_console: Console,
    run_id: str,
    state: Completeness,
    why: str | None = None,
    gate: GateReport | None = None,
) -> None:
    """Exit as the table says: a CI job must not read a half-asked or failed run, nor one whose
    own gate failed, as done."""
    code, line = state_exit(run_id, state, why, gate)
    if line is not None:
        err_console.print(line, soft_wrap=True)
    if code:
        raise typer.Exit(code)
