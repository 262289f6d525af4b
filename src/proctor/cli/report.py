"""`proctor score` and `proctor report`: a stored run's grades (graded again by `score`, read as
stored by `report`), its report printed and its files written, and the exit code its state
gives (`proctor.runs.state`); turn runs (dialogues, workflows) by their own kind's rules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import (
    GradeBy,
    PricesOption,
    ResultsDir,
    RunRef,
    SandboxLimits,
    grade_by_kinds,
    results_dir_of,
    terminal,
)
from proctor.errors import StoreError

if TYPE_CHECKING:  # annotations only: the statistics are `proctor.runs.rereport`'s
    from rich.console import Console

    from proctor.runs.gate import Completeness, GateReport
    from proctor.runs.rereport import Reported
    from proctor.tasks.base import Task


def score_cmd(
    run_ref: RunRef,
    results_dir: ResultsDir = DEFAULT_RESULTS,
    prices: PricesOption = None,
    diff: Annotated[
        bool,
        typer.Option(help="Print every verdict the re-grade flipped and a paired test old vs new."),
    ] = False,
    sandbox_limits: SandboxLimits = None,
    grade_by: GradeBy = None,
) -> None:
    """Re-grade a stored run with the current rules (people's verdicts are kept as they are);
    never calls a model.

    Exits like the run: 3 when it is incomplete, 4 when calls failed."""
    results_dir = results_dir_of(run_ref, results_dir)
    human = grade_by_kinds(grade_by)

    def regrade() -> None:
        _report_and_exit(
            run_ref, results_dir, prices, regrade=True, sandbox_limits=sandbox_limits, human=human
        )

    if not diff:
        regrade()
        return
    from proctor.cli.score_diff import score_with_diff

    score_with_diff(run_ref, results_dir, regrade, terminal())


def report_cmd(
    run_ref: RunRef,
    results_dir: ResultsDir = DEFAULT_RESULTS,
    prices: PricesOption = None,
    grade_by: GradeBy = None,
) -> None:
    """Print a run's report and rewrite its files, from its stored grades (`proctor score RUN`
    grades again with the current rules).

    Exits like the run: 3 when it is incomplete, 4 when calls failed."""
    human = grade_by_kinds(grade_by)
    results_dir = results_dir_of(run_ref, results_dir)
    _report_and_exit(run_ref, results_dir, prices, regrade=False, human=human)


def _report_and_exit(
    run_ref: str,
    results_dir: Path,
    prices: Path | None,
    *,
    regrade: bool,
    sandbox_limits: str | None = None,
    human: tuple[str, ...] = (),
) -> None:
    """`score` and `report`: an unknown run is a usage error (2); a report that cannot be
    written (a full disk) leaves it incomplete (3); then the run's own state decides."""
    from proctor.cli.run_state import exit_for, say_store_failed
    from proctor.runs.rereport import find_run, report_turn_run
    from proctor.runs.state import EXIT_INCOMPLETE

    run = find_run(results_dir, run_ref)
    if run.turns:
        shown = report_turn_run(results_dir, run.run_id, regrade=regrade)
        how = "re-graded from the store" if regrade else "its stored grade"
        _print_report(shown, f"run [bold]{shown.run_id}[/] · {how}", terminal())
        if shown.exit_code:
            raise typer.Exit(shown.exit_code)
        return
    try:
        state, gate = grade_and_report(
            run.run_id,
            results_dir,
            prices,
            regrade=regrade,
            sandbox_limits=sandbox_limits,
            grade_by_human=human,
        )
    except StoreError as e:
        err_console = terminal(stderr=True)
        say_store_failed(err_console, e, results_dir, run.run_id, f"proctor report {run.run_id}")
        raise typer.Exit(EXIT_INCOMPLETE) from None
    exit_for(terminal(stderr=True), run.run_id, state, gate=gate)


def grade_and_report(
    run_ref: str,
    results_dir: Path,
    prices: Path | None = None,
    *,
    regrade: bool = True,
    sandbox_limits: str | None = None,
    grade_by_human: tuple[str, ...] = (),
    ci: bool = False,
    junit: Path | None = None,
) -> tuple[Completeness, GateReport | None]:
    """Print and write the report from the run's stored grades, after grading every answer
    again (saving the grades) when `regrade` (`proctor score`); the run's completeness, said at
    the top when it is not a success. A task that runs code is graded under `sandbox_limits`,
    else under the limits of its last grading (named in its grader version, e.g.
    "humaneval/2+strict"), else the reference's. `ci` (a run just asked): also `junit` and
    the job summary (`proctor.runs.ci`)."""
    from proctor.runs.rereport import report_run
    from proctor.runs.state import state_lines
    from proctor.tasks.registry import get_task

    def task_for(name: str, stored_limits: str) -> Task:
        return with_sandbox_limits(get_task(name), sandbox_limits or stored_limits or None)

    shown = report_run(
        results_dir, run_ref, prices, task_for, regrade=regrade, grade_by_human=grade_by_human,
        ci=ci, junit=junit,
    )
    run_id, state = shown.run_id, shown.stats.completeness
    console = terminal()
    lines = state_lines(run_id, state)
    if lines:
        kind, colour = ("is incomplete" if state.incomplete else "has failed calls"), "red"
        if state.stopped_by_design:
            kind, colour = "stopped early by design", "yellow"
        console.print(f"[bold {colour}]run {run_id} {kind}:[/]")
        for line in lines:
            console.print(f"  {line}")
    _print_report(shown, f"run [bold]{run_id}[/]", console)
    return state, shown.stats.gate


def _print_report(shown: Reported, head: str, console: Console) -> None:
    """The report, then `head` with the run's folder, then the files written."""
    from rich.text import Text

    from proctor.cli.console import plain
    from proctor.report.terminal import render_report

    render_report(shown.stats, console)
    console.print(f"{head} · folder {plain(shown.run_dir)}")
    for path in shown.written:
        console.print(Text(f"  {path}"))


def turn_run_kind(results_dir: Path, ref: str) -> tuple[str, str]:
    """(its kind, its id) when `ref` names a turn run (dialogue, workflow) in the store, else
    ("", "")."""
    from proctor.runs.rereport import turn_run_of

    return turn_run_of(results_dir, ref)


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
