"""What `proctor dialogue` and `proctor workflow` share, and `proctor run --resume` of their runs:
asking with a caller of the model, under Ctrl-C (exit 130 with the run to resume), printing
the run as its kind (`proctor.runs.turns.TURN_KINDS`) says, its closing lines and exit code."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from proctor.cli.stop_signals import interrupted_by, interrupted_exit_code

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.runs.turn_lifecycle import TurnRunDone
    from proctor.runs.turns import TurnKind, TurnStart

R = TypeVar("R")


def interrupted(kind: str, started: Sequence[str], results_dir: Path) -> None:
    """One line on stderr: what was kept and the command that goes on."""
    from proctor.cli.console import SafeConsole

    err = SafeConsole(stderr=True)
    stopped = interrupted_by()
    if not started:
        err.print(f"{stopped} before the {kind} run began: nothing was stored", markup=False)
        return
    run_id = started[-1]
    err.print(
        f"{stopped}: the answered turns of {kind} run {run_id} are stored in {results_dir}; "
        f"the same command (or `proctor {kind} FILE --resume {run_id}`) goes on from there",
        markup=False,
    )


def print_run_end(
    console: Console, run_id: str, written: Sequence[Path], *, failed: str = ""
) -> None:
    """The run's id and files; when a call failed, how to ask it again (`failed`: turn or step)."""
    console.print(f"run {run_id} · folder {written[0].parent if written else ''}", markup=False)
    for path in written:
        console.print(f"  {path}", markup=False)
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
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM / SIGHUP handed on as one (stop_signals)
        interrupted(kind, started, results_dir)
        raise typer.Exit(interrupted_exit_code()) from None


def ask_turn_run(
    kind: TurnKind,
    results_dir: Path,
    model: str,
    max_attempts: int,
    start: TurnStart,
    tools: str = "",
) -> None:
    """Ask (or resume) a dialogue or workflow run with a caller of `model`, print it as its kind
    says, and exit with its outcome's code; on Ctrl-C, say what was kept and exit 130."""
    from proctor.calling.caller import ModelCaller
    from proctor.calling.retry import RetryPolicy
    from proctor.cli.console import SafeConsole
    from proctor.providers.registry import make_provider

    async def go(started: list[str]) -> tuple[TurnRunDone[Any], list[Path]]:
        provider = make_provider(model)
        caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=max_attempts))
        try:
            return await start(caller, started.append)
        finally:
            await provider.aclose()

    done, written = ask_or_interrupted(kind.name, results_dir, go)
    console = SafeConsole()
    if done.resumed:
        console.print(f"resumed run {done.run_id}: {done.resumed} {kind.noun}s from the store")
    for line in kind.lines(done.result, tools):
        console.print(line, markup=False)
    outcome = kind.outcome(done.result)
    print_run_end(
        console, done.run_id, written, failed=kind.noun if outcome == "call_failed" else ""
    )
    code = kind.exit_code(outcome)
    if code:
        raise typer.Exit(code)


def resume_turn_run(
    results_dir: Path, run_id: str, kind: str, *, timeout: float, max_attempts: int
) -> None:
    """`proctor run --resume RUN` of a dialogue or workflow run: go on as its own command would,
    with the tree or workflow, model and settings the run began with (from the store)."""
    from proctor.runs import turns

    resumed = turns.resume_turn_run(results_dir, run_id, kind, timeout)
    ask_turn_run(
        turns.TURN_KINDS[kind], results_dir, resumed.model, max_attempts, resumed.start,
        resumed.tools,
    )  # fmt: skip
