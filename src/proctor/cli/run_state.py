"""How a run ends: the exit code its stored state gives (`exit_codes`), and the lines that say
what is missing or failed, why, and the command that finishes it. Shared by `run`, `score`,
`report` and `gate`, so that all of them say the same of the same run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from proctor.cli.console import plain
from proctor.cli.exit_codes import EXIT_CALLS_FAILED, EXIT_INCOMPLETE, EXIT_OK
from proctor.errors import StoreError
from proctor.redact import scrubbed

if TYPE_CHECKING:  # kept out of `proctor --help`'s imports
    from proctor.runner import RunOutcome
    from proctor.stats.completeness import Completeness


def state_lines(run_id: str, state: Completeness) -> list[str]:
    """What keeps a stored run from being a success, one line per model and problem (markup
    escaped); empty when every answer is stored and every call was answered."""
    lines: list[str] = []
    for m in state.models:
        name = plain(m.model)
        if m.missing:
            lines.append(f"{name}: {m.missing:,} of {m.expected:,} answers not asked yet")
        if m.not_asked:
            lines.append(
                f"{name}: {m.not_asked:,} of {m.expected:,} calls not asked "
                "(its circuit breaker stopped it)"
            )
        if m.failed:
            lines.append(
                f"{name}: {m.failed:,} of {m.expected:,} calls failed; first cause: "
                f"{plain(m.first_cause)} ({m.first_cause_calls:,} of {m.expected:,} calls)"
            )
    return lines


def state_exit(run_id: str, state: Completeness, why: str | None = None) -> tuple[int, str | None]:
    """The exit code a stored run gives (`exit_codes`), and the line that says why (`why`: what
    this session saw, e.g. the deadline) and which command finishes it (None when it
    succeeded)."""
    if state.incomplete:
        # Calls a breaker stopped are stored (as failed): --retry-errors asks them, and what
        # is missing too; --resume asks only what is missing.
        again = "--retry-errors" if any(m.not_asked for m in state.models) else "--resume"
        return EXIT_INCOMPLETE, (
            f"[red]run {run_id} is incomplete:[/] not every call was asked"
            f"{f' ({plain(why)})' if why else ''}; what is stored is kept. "
            f"`proctor run {again} {run_id}` finishes it"
        )
    if state.calls_failed:
        failed = sum(m.failed for m in state.models)
        return EXIT_CALLS_FAILED, (
            f"[red]run {run_id} has {failed:,} failed call(s)[/] (never graded as wrong). "
            f"Fix the cause, then `proctor run --retry-errors {run_id}` asks them again"
        )
    return EXIT_OK, None


def session_cause(outcome: RunOutcome) -> str | None:
    """Why this session left answers unasked, when it knows."""
    if outcome.deadline_hit:
        return "the deadline came first"
    lost = sum(r.left_missing for r in outcome.models)
    if lost:
        return f"{lost:,} answers left missing after Ray workers failed (the shard lines say where)"
    stopped = [r.model for r in outcome.models if r.stopped]
    if stopped:
        return f"{', '.join(stopped)} stopped by the circuit breaker"
    return None


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
    from proctor.store import RunStore

    with RunStore.open(results_dir) as store:
        stored = sum(store.count_records(run_id).values())
        info = store.run_info(run_id)
        epochs = store.run_config(run_id).get("epochs", 1)
    expected = info.dataset_size * len(info.models) * (epochs if isinstance(epochs, int) else 1)
    err_console.print(
        f"[yellow]{interrupted_by()}:[/] run {run_id} keeps the {stored:,} of {expected:,} "
        f"answers stored; `proctor run --resume {run_id}` asks the rest",
        soft_wrap=True,
    )


def exit_for(
    err_console: Console, run_id: str, state: Completeness, why: str | None = None
) -> None:
    """Exit as the table says: a CI job must not read a half-asked or failed run as done."""
    code, line = state_exit(run_id, state, why)
    if line is not None:
        err_console.print(line, soft_wrap=True)
    if code:
        raise typer.Exit(code)
