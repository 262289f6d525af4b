"""The run command's asking and reporting: `proctor run` checks its options, then asks the plan
under the live progress view (`ask`), prints what was asked (`print_outcome`), reports the run
and exits as its state says (`report_run`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from proctor.cli.options import terminal
from proctor.cli.report import grade_and_report, turn_run_kind
from proctor.errors import StoreError

if TYPE_CHECKING:
    from proctor.cli.console import SafeConsole
    from proctor.cli.suite import SuiteRun
    from proctor.executors.base import Executor
    from proctor.runs.plan import OnPlan, RunOutcome, RunPlan


def resumed_turn_run(
    ref: str | None, results_dir: Path, timeout: float, attempts: int, *, traces_asked: bool
) -> bool:
    """A dialogue or workflow run named by --resume goes on as its own command would. Its turns
    send no OpenTelemetry spans (yet): `--otel-endpoint` is said to be ignored, not dropped
    silently."""
    if ref is None or not (results_dir / "proctor.db").exists():
        return False
    kind, run_id = turn_run_kind(results_dir, ref)
    if kind and traces_asked:
        from proctor.cli.json_events import warn

        warn(
            terminal(stderr=True),
            f"--otel-endpoint: a {kind} run sends no spans (only runs of samples do); "
            "the run goes on without them",
        )
    if kind:
        from proctor.cli.turns import resume_turn_run

        resume_turn_run(results_dir, run_id, kind, timeout=timeout, max_attempts=attempts)
    return bool(kind)


def check_counts(max_attempts: int, max_reply_bytes: int, samples: int) -> None:
    if max_attempts < 1:
        raise typer.BadParameter("--max-attempts must be at least 1")
    if max_reply_bytes < 1:
        raise typer.BadParameter("--max-reply-bytes must be at least 1")
    if samples < 1:
        raise typer.BadParameter("--samples must be at least 1")


def warn_same_samples(samples: int, temperature: float) -> None:
    if samples > 1 and temperature == 0:
        from proctor.cli.json_events import warn

        warn(terminal(stderr=True), "--samples > 1 at temperature 0 asks for the same reply again")


def asks_here(chosen: Executor | None) -> bool:
    return chosen is None or chosen.asks_here


def print_outcome(outcome: RunOutcome, retried: bool) -> None:
    from proctor.cli.run_support import print_call_reports, say_warnings

    console = terminal()
    if outcome.resumed:
        what = "failed or missing" if retried else "missing"
        console.print(f"resumed run {outcome.run_id}: asked {outcome.asked} {what} calls")
    print_call_reports(outcome, console)
    say_warnings([outcome])
    if any(outcome.reused.values()):
        from proctor.cli.cache import print_reused

        print_reused(outcome, console)


def set_named(ref: str | None, results_dir: Path) -> str | None:
    """The set `--resume`/`--retry-errors` names, or None (it names a run, or nothing)."""
    if ref is None:
        return None
    from proctor.runs.sets import find_set

    return find_set(results_dir, ref)


def ask(
    plan: RunPlan,
    chosen: Executor | None,
    resume: str | None,
    retry_errors: bool,
    suite_run: SuiteRun | None,
) -> RunOutcome:
    """Execute the plan under the live progress view; on Ctrl-C (or SIGTERM, SIGHUP) say what
    is stored and how to go on, and exit with the signal's code."""
    from proctor.cli.json_events import active, tee
    from proctor.cli.keys import print_key_header
    from proctor.cli.progress import RunProgress
    from proctor.cli.run_state import say_interrupted, say_store_failed
    from proctor.runs.ask import execute, run_keys
    from proctor.runs.state import EXIT_INCOMPLETE

    console, err_console = terminal(), terminal(stderr=True)
    results_dir = plan.results_dir
    here = asks_here(chosen)
    started: list[str] = []  # the run's id, once the run exists (for the Ctrl-C line)
    events = active()  # --json
    try:
        with RunProgress(console) as progress:

            def on_plan(run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
                # the models are known now (a resumed run's come from the store), none asked
                keys = run_keys(replace(plan, models=tuple(counts)), {}, check_set=here)
                print_key_header(keys, console)
                progress.on_plan(run_id, counts)
                if events is not None:
                    events.started(run_id, plan.task.name, counts)

            noted = noting_run(started, on_plan)
            import asyncio  # here, not at the top: `--help` and other commands need none of it

            outcome = asyncio.run(
                execute(
                    plan,
                    resume=resume,
                    retry_errors=retry_errors,
                    on_plan=suite_run.on_plan(noted, results_dir) if suite_run else noted,
                    on_result=tee(progress.on_result, events),
                    executor=chosen,
                    on_stored=events.stored if events is not None else None,
                )
            )
            if events is not None:
                events.asked(outcome)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM / SIGHUP handed on as one (stop_signals)
        from proctor.cli.stop_signals import interrupted_exit_code

        say_interrupted(err_console, results_dir, started[0] if started else None)
        raise typer.Exit(interrupted_exit_code()) from None
    except StoreError as e:
        if not started:
            raise  # nothing was asked: a usage or configuration error (exit 2)
        say_store_failed(
            err_console, e, results_dir, started[0], f"proctor run --resume {started[0]}"
        )
        raise typer.Exit(EXIT_INCOMPLETE) from None
    return outcome


def report_run(
    outcome: RunOutcome,
    results_dir: Path,
    prices: Path | None,
    sandbox_limits: str | None,
    err: SafeConsole,
    junit: Path | None = None,
) -> None:
    """Grade-free report of the run just asked (its answers were graded as stored) and what CI
    reads of it (`--junit`, $GITHUB_STEP_SUMMARY), then exit as its state and its own gate say
    (`proctor.runs.state`)."""
    from proctor.cli.run_state import exit_for, say_store_failed
    from proctor.runs.state import EXIT_INCOMPLETE, session_cause

    try:
        state, gate = grade_and_report(
            outcome.run_id, results_dir, prices, regrade=False, sandbox_limits=sandbox_limits,
            ci=True, junit=junit,
        )  # fmt: skip
    except StoreError as e:  # a full disk: the answers are stored, the report is not written
        say_store_failed(
            err, e, results_dir, outcome.run_id, f"proctor report {outcome.run_id}"
        )
        raise typer.Exit(EXIT_INCOMPLETE) from None
    except Exception:
        # Every answer is stored already; say so before the traceback of what went wrong.
        err.print(
            f"[red]the report of run {outcome.run_id} failed[/]; its answers are stored: "
            f"`proctor report {outcome.run_id}` tries again"
        )
        raise
    exit_for(err, outcome.run_id, state, session_cause(outcome), gate)


def noting_run(started: list[str], on_plan: OnPlan) -> OnPlan:
    def note(run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
        started.append(run_id)
        on_plan(run_id, counts)

    return note
