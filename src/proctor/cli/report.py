"""`proctor score` and `proctor report`: a stored run's grades (graded again by `score`, read as
stored by `report`), its report printed and its files written, and the exit code its state
gives (`proctor.runs.state`); turn runs (dialogues, workflows) by their own kind's rules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import (
    PricesOption,
    ResultsDir,
    SandboxLimits,
    results_dir_of,
    terminal,
)
from proctor.errors import ProctorError, StoreError

if TYPE_CHECKING:
    from proctor.runs.turns import TurnKind
    from proctor.stats.completeness import Completeness
    from proctor.stats.run_statistics import GateReport
    from proctor.store import RunStore
    from proctor.tasks.base import Task


def score_cmd(
    run_ref: Annotated[str, typer.Argument(metavar="RUN", help="Run id, prefix or folder.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
    prices: PricesOption = None,
    diff: Annotated[
        bool,
        typer.Option(help="Print every verdict the re-grade flipped and a paired test old vs new."),
    ] = False,
    sandbox_limits: SandboxLimits = None,
) -> None:
    """Re-grade a stored run with the current rules; never calls a model.

    Exits like the run: 3 when it is incomplete, 4 when calls failed."""
    results_dir = results_dir_of(run_ref, results_dir)

    def regrade() -> None:
        _report_and_exit(run_ref, results_dir, prices, regrade=True, sandbox_limits=sandbox_limits)

    if not diff:
        regrade()
        return
    from proctor.cli.score_diff import score_with_diff

    score_with_diff(run_ref, results_dir, regrade, terminal())


def report_cmd(
    run_ref: Annotated[str, typer.Argument(metavar="RUN", help="Run id, prefix or folder.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
    prices: PricesOption = None,
) -> None:
    """Print a run's report and rewrite its files, from its stored grades (`proctor score RUN`
    grades again with the current rules).

    Exits like the run: 3 when it is incomplete, 4 when calls failed."""
    _report_and_exit(run_ref, results_dir_of(run_ref, results_dir), prices, regrade=False)


def _report_and_exit(
    run_ref: str,
    results_dir: Path,
    prices: Path | None,
    *,
    regrade: bool,
    sandbox_limits: str | None = None,
) -> None:
    """`score` and `report`: an unknown run is a usage error (2); a report that cannot be
    written (a full disk) leaves it incomplete (3); then the run's own state decides."""
    from proctor.cli.run_state import exit_for, say_store_failed
    from proctor.runs.state import EXIT_INCOMPLETE
    from proctor.runs.turns import turn_kind
    from proctor.store import RunStore

    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(run_ref)
        kind = turn_kind(store.run_info(run_id).task)
        if kind is not None:
            code = _regrade_turns(store, run_id, kind, regrade=regrade)
            if code:
                raise typer.Exit(code)
            return
    try:
        state, gate = grade_and_report(
            run_id, results_dir, prices, regrade=regrade, sandbox_limits=sandbox_limits
        )
    except StoreError as e:
        err_console = terminal(stderr=True)
        say_store_failed(err_console, e, results_dir, run_id, f"proctor report {run_id}")
        raise typer.Exit(EXIT_INCOMPLETE) from None
    exit_for(terminal(stderr=True), run_id, state, gate=gate)


def grade_and_report(
    run_ref: str,
    results_dir: Path,
    prices: Path | None = None,
    *,
    regrade: bool = True,
    sandbox_limits: str | None = None,
    ci: bool = False,
    junit: Path | None = None,
) -> tuple[Completeness, GateReport | None]:
    """Print and write the report from the run's stored grades, after grading every answer
    again (saving the grades) when `regrade` (`proctor score`); the run's completeness, said at
    the top when it is not a success. A task that runs code is graded under `sandbox_limits`,
    else under the limits of its last grading (named in its grader version, e.g.
    "humaneval/2+strict"), else the reference's. `ci` (a run just asked): also `junit` and
    the job summary (`proctor.runs.ci`)."""
    from rich.text import Text

    from proctor.cli.console import plain
    from proctor.report.terminal import render_report
    from proctor.runs.grade import grade_run
    from proctor.runs.report import run_statistics, write_report
    from proctor.runs.state import state_lines
    from proctor.stats.cost import load_price_table
    from proctor.store import RunStore
    from proctor.tasks.registry import get_task

    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    table = load_price_table(prices)
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(run_ref)
        info = store.run_info(run_id)
        version = store.grader_version(run_id) or ""
        stored = version.partition("+")[2] if version.startswith(f"{info.task}/") else ""
        task = with_sandbox_limits(get_task(info.task), sandbox_limits or stored or None)
        if regrade:
            grade_run(store, run_id, task, keep_items=False, workers=None)
        stats = run_statistics(store, run_id, task, prices=table)
        written = write_report(store, stats)
        if ci:
            from proctor.runs.ci import run_ci_files

            written += run_ci_files(stats, junit)
        run_dir = store.run_dir(run_id)
    state = stats.completeness
    console = terminal()
    lines = state_lines(run_id, state)
    if lines:
        kind = "is incomplete" if state.incomplete else "has failed calls"
        console.print(f"[bold red]run {run_id} {kind}:[/]")
        for line in lines:
            console.print(f"  {line}")
    render_report(stats, console)
    console.print(f"run [bold]{run_id}[/] · folder {plain(run_dir)}")
    for path in written:
        console.print(Text(f"  {path}"))
    return state, stats.gate


def turn_run_kind(results_dir: Path, ref: str) -> tuple[str, str]:
    """(its kind, its id) when `ref` names a turn run (dialogue, workflow) in the store, else
    ("", "")."""
    from proctor.runs.turns import turn_kind
    from proctor.store import RunStore

    with RunStore.open(results_dir) as store:
        try:
            run_id = store.resolve(ref)
            task = store.run_info(run_id).task
        except ProctorError:
            return "", ""  # not a run here: `proctor run` says so itself
    return (task, run_id) if turn_kind(task) is not None else ("", "")


def _regrade_turns(store: RunStore, run_id: str, kind: TurnKind, *, regrade: bool) -> int:
    """Show (and with `regrade`, grade again with the current rules, calling nothing) a stored
    turn run, writing its files; the exit code its own command gives it."""
    from rich.text import Text

    from proctor.cli.console import plain
    from proctor.report.terminal import render_report
    from proctor.runs.report import run_statistics, turn_scores, write_report

    if regrade or not turn_scores(store, run_id):
        kind.regrade(store, run_id)
    stats = run_statistics(store, run_id, None)
    written = write_report(store, stats)
    console = terminal()
    render_report(stats, console)
    how = "re-graded from the store" if regrade else "its stored grade"
    console.print(f"run [bold]{run_id}[/] · {how} · folder {plain(store.run_dir(run_id))}")
    for path in written:
        console.print(Text(f"  {path}"))
    return kind.exit_code(stats.turns[0].outcome) if stats.turns else 0


def with_sandbox_limits(task: Task, profile: str | None) -> Task:
    if profile is None:
        return task
    if task.with_limits is None:
        raise typer.BadParameter(f"--sandbox-limits: task {task.name} runs no code")
    try:
        return task.with_limits(profile)
    except KeyError:
        raise typer.BadParameter(
            f"--sandbox-limits: unknown limits {profile!r}: use reference or strict"
        ) from None
