"""`proctor run TASK TASK …` (and `--resume SET`, `--retry-errors SET`): the set is planned and
asked in `proctor.runs.sets`; this module shows its progress (a line per task, the live view of
the task being asked), reports each task's run, and exits with one code for the set by the rule
of `proctor.runs.state`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table
from rich.text import Text

from proctor._util.closing import Closing
from proctor.cli.console import plain
from proctor.errors import StoreError
from proctor.runs.state import (
    EXIT_CALLS_FAILED,
    EXIT_CHECK_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    first_applicable,
    session_cause,
    state_exit,
)
from proctor.types import Score

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.cli.progress import RunProgress
    from proctor.executors.base import Executor
    from proctor.runs.costs import PriceTable
    from proctor.runs.plan import Asking, Calling, Matrix, Paper
    from proctor.runs.sets import SetOutcome, SetPlan


class SetProgress(Closing):
    """One line per task as it starts ("set S · task 2 of 4: gsm8k"), under it the live view of
    that task's run; the set's own count in each line."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live: RunProgress | None = None
        self.set_id: str | None = None
        self.run_id: str | None = None

    def on_task(self, set_id: str, position: int, count: int, task: str) -> None:
        from proctor.cli.progress import RunProgress

        self.close()
        self.set_id, self.run_id = set_id, None
        self._console.print(
            f"set [bold]{plain(set_id)}[/] · task {position + 1} of {count}: {plain(task)} "
            f"({position} of {count} done)"
        )
        self._live = RunProgress(self._console).__enter__()

    def on_plan(self, run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
        self.run_id = run_id
        if self._live is not None:
            self._live.on_plan(run_id, counts)

    def on_result(self, model: str, score: Score) -> None:
        if self._live is not None:
            self._live.on_result(model, score)

    def close(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.__exit__(None, None, None)


def run_set(
    plan: SetPlan,
    *,
    resume: str | None,
    retry_errors: bool,
    executor: Executor | None,
    prices: Path | None,
    sandbox_limits: str | None,
) -> None:
    """Ask the set, report each of its runs, exit with the set's code."""
    import asyncio

    from proctor.cli.options import terminal
    from proctor.runs.sets import execute_set

    console, err = terminal(), terminal(stderr=True)
    with SetProgress(console) as progress:
        try:
            outcome = asyncio.run(
                execute_set(
                    plan, resume=resume, retry_errors=retry_errors, executor=executor,
                    on_task=progress.on_task, on_plan=progress.on_plan,
                    on_result=progress.on_result,
                )
            )  # fmt: skip
        except KeyboardInterrupt:
            progress.close()
            _say_interrupted(err, progress.set_id)
        except StoreError as e:
            if progress.set_id is None:
                raise
            progress.close()
            err.print(f"[red]error:[/] {plain(str(e))}", soft_wrap=True)
            err.print(f"`proctor run --resume {progress.set_id}` finishes the set", soft_wrap=True)
            raise typer.Exit(EXIT_INCOMPLETE) from None
    if outcome.resumed:
        console.print(f"resumed set {outcome.set_id}")
    code = report_set(outcome, plan.results_dir, prices, sandbox_limits, console, err)
    if code != EXIT_OK:
        raise typer.Exit(code)


def _say_interrupted(err: Console, set_id: str | None) -> None:
    from proctor.cli.stop_signals import interrupted_by, interrupted_exit_code

    if set_id is None:
        err.print(f"{interrupted_by()} before the set began: nothing was asked or stored")
    else:
        err.print(
            f"[yellow]{interrupted_by()}:[/] set {set_id} keeps every answer stored; "
            f"`proctor run --resume {set_id}` asks the rest",
            soft_wrap=True,
        )
    raise typer.Exit(interrupted_exit_code())


def report_set(
    outcome: SetOutcome,
    results_dir: Path,
    prices: Path | None,
    sandbox_limits: str | None,
    console: Console,
    err: Console,
) -> int:
    """Each run's report, then one line per task and the set's exit code (the first that
    applies of its runs' codes)."""
    from proctor.cli.report import grade_and_report
    from proctor.cli.run_support import print_call_reports, say_warnings

    named = outcome.name and outcome.name != outcome.set_id
    table = Table(title=f"set {outcome.name} ({outcome.set_id})" if named else "the set's tasks")
    for col in ("task", "run", "state"):
        table.add_column(col)
    codes: list[int] = []
    say_warnings(outcome.runs)
    for task, run in zip(outcome.tasks, outcome.runs, strict=True):
        print_call_reports(run, console)
        state, gate = grade_and_report(
            run.run_id, results_dir, prices, regrade=False, sandbox_limits=sandbox_limits
        )
        code, line = state_exit(run.run_id, state, session_cause(run), gate)
        if line is not None:
            err.print(line, soft_wrap=True)
        codes.append(code)
        table.add_row(Text(task), Text(run.run_id), _state_word(code))
    console.print(table)
    from proctor.runs.board_files import write_set_report

    written = write_set_report(results_dir, outcome.set_id, prices)
    console.print(f"set's leaderboard: {plain(str(written[0]))}", soft_wrap=True)
    code = first_applicable(codes)
    console.print(
        f"set [bold]{plain(outcome.set_id)}[/]: {sum(c == EXIT_OK for c in codes)} of "
        f"{len(codes)} tasks complete"
    )
    if code == EXIT_INCOMPLETE:
        err.print(f"`proctor run --resume {outcome.set_id}` finishes the set", soft_wrap=True)
    elif code != EXIT_OK and EXIT_CALLS_FAILED in codes:
        err.print(
            f"`proctor run --retry-errors {outcome.set_id}` asks the failed calls again",
            soft_wrap=True,
        )
    return code


def _state_word(code: int) -> str:
    words = {
        EXIT_OK: "complete",
        EXIT_CHECK_FAILED: "gate failed",
        EXIT_INCOMPLETE: "incomplete",
        EXIT_CALLS_FAILED: "calls failed",
    }
    return words.get(code, f"exit {code}")


def set_command(
    tasks: list[str],
    models: list[str] | None,
    paper: Paper,
    asking: Asking,
    calling: Calling,
    results_dir: Path,
    set_ref: str | None,
    retry_errors: bool,
    chosen: Executor | None,
    prices: Path | None,
    sandbox_limits: str | None,
    estimate: bool,
    *,
    judge: str | None,
    suite: Path | None,
    config: Path | None = None,
    price_table: PriceTable,
    matrix: Matrix | None = None,
) -> None:
    """`proctor run TASK TASK …` or `--resume SET`: the set's plan, estimated or asked. (Its
    parameters are the options of `proctor run` a set takes, hence their number; `price_table`
    is `prices` as `proctor run` read it, before any call.) A `matrix` (several --prompt, --lang
    or --temperature) is each task's: every prompt file, language and temperature makes a
    variant of every task's run, as one of each does."""
    from proctor.cli.options import terminal
    from proctor.cli.report import with_sandbox_limits
    from proctor.cli.run_support import print_estimate
    from proctor.runs.plan import Matrix
    from proctor.runs.sets import SetPlan, SetTask, run_plans
    from proctor.tasks.registry import get_task

    for flag, given in (("--dataset", paper.dataset), ("--suite", suite), ("--judge", judge)):
        if given is not None:
            raise typer.BadParameter(f"{flag} takes one task: a set of several cannot use it")
    matrix = matrix or Matrix()
    _refuse_unused_matrix(matrix, config, set_ref, retry_errors)
    plan = SetPlan(
        tasks=tuple(SetTask(t, paper, asking, matrix) for t in tasks),
        models=tuple(models or ["local"]),
        results_dir=results_dir,
        calling=calling,
        task_of=lambda name: with_sandbox_limits(get_task(name), sandbox_limits),
    )
    if config is not None:
        _refuse_beside_file(paper, asking)
        plan = _from_file(plan, config, tasks, models, asking)
    if estimate:
        if set_ref is not None:
            raise typer.BadParameter("--estimate plans a new set: name its tasks, not --resume")
        here, table = chosen is None or chosen.asks_here, price_table
        for one in run_plans(plan):
            print_estimate(one, table, terminal(), check_set=here)
        return
    run_set(plan, resume=set_ref, retry_errors=retry_errors, executor=chosen,
            prices=prices, sandbox_limits=sandbox_limits)  # fmt: skip


def _refuse_unused_matrix(
    matrix: Matrix, config: Path | None, set_ref: str | None, retry_errors: bool
) -> None:
    """A matrix the set would not use is refused, never dropped: a set file writes its own, a
    stored set is asked as it was planned."""
    if not matrix:
        return
    repeated = "drop the repeated --prompt, --lang or --temperature"
    if config is not None:
        raise typer.BadParameter(
            f"--config writes each task's matrix (prompt = [...], lang = [...], temperature = "
            f"[...] in the set file): {repeated}"
        )
    if set_ref is not None:
        flag = "--retry-errors" if retry_errors else "--resume"
        raise typer.BadParameter(
            f"{flag} {set_ref} asks the set with the matrix it was started with: {repeated}"
        )


def _refuse_beside_file(paper: Paper, asking: Asking) -> None:
    """One prompt, reply cap, paper size or seed beside --config is refused, never dropped: the
    set file writes each task's (a language or temperature given here is the file's default)."""
    given = (
        ("--prompt", "prompt", asking.prompt), ("--max-tokens", "max_tokens", asking.max_tokens),
        ("--n", "n", paper.n), ("--limit", "limit", paper.limit), ("--seed", "seed", paper.seed),
    )  # fmt: skip
    for flag, key, value in given:
        if value is not None:
            raise typer.BadParameter(
                f"--config writes each task's {key} in the set file ({key} = ...): put it "
                f"there, at the top or in a [[tasks]] table, and drop {flag}"
            )


def _from_file(
    plan: SetPlan, config: Path, tasks: list[str], models: list[str] | None, asking: Asking
) -> SetPlan:
    """The set `--config FILE` writes down; tasks and models named beside it would be two
    answers to one question, so they are refused."""
    from dataclasses import replace

    from proctor.runs.set_config import check_set_file, read_set_file

    if tasks or models:
        raise typer.BadParameter("--config names the tasks and models: drop TASK and -m")
    check_set_file(config, plan.results_dir)  # as `proctor validate` does: file, line, field
    written = read_set_file(config, asking)
    calling = plan.calling
    if written.samples is not None:
        calling = replace(calling, epochs=written.samples)
    return replace(
        plan, tasks=written.tasks, models=written.models, name=written.name, calling=calling
    )
