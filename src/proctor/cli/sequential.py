"""`proctor run TASK -m A -m B --sequential --margin 1pp`: parse and print; the asking is
`proctor.runs.sequential`. Exit codes: 0 when B is SUPERIOR, NON-INFERIOR or EQUIVALENT, 1 when
INFERIOR, 7 when every item was asked and it is still INCONCLUSIVE."""

from __future__ import annotations

from pathlib import Path

import typer

from proctor.cli.console import SafeConsole
from proctor.runs.plan import RunPlan
from proctor.runs.state import EXIT_CHECK_FAILED, EXIT_INCONCLUSIVE, EXIT_OK


def ask_sequential(
    plan: RunPlan,
    margin: str | None,
    batch: int,
    seed: int,
    resume: str | None,
    console: SafeConsole,
    prices: Path | None = None,
) -> None:
    """Ask until decided, print the verdict, write the run's report files (a run stopped early
    says so, and why: `proctor.runs.stopped`), exit by the verdict."""
    import asyncio

    from rich.text import Text

    from proctor.cli.run_support import say_warnings
    from proctor.runs.gate import read_margin
    from proctor.runs.rereport import report_run
    from proctor.runs.sequential import run_sequential

    points = read_margin(margin)
    if points is None:
        raise typer.BadParameter("--sequential needs --margin, e.g. --margin 1pp")
    done = asyncio.run(run_sequential(plan, points, batch=batch, seed=seed, resume=resume))
    say_warnings([done.run])
    style = {"INFERIOR": "bold red", "INCONCLUSIVE": "bold yellow"}.get(done.verdict, "bold green")
    console.print(Text(f"run {done.run.run_id}"))
    console.print(Text(done.sentence(), style=style), soft_wrap=True)
    reported = report_run(
        plan.results_dir, done.run.run_id, prices, lambda *_: plan.task, regrade=False
    )
    for path in reported.written:
        console.print(Text(f"  {path}"))
    code = {"INFERIOR": EXIT_CHECK_FAILED, "INCONCLUSIVE": EXIT_INCONCLUSIVE}.get(
        done.verdict, EXIT_OK
    )
    if code != EXIT_OK:
        raise typer.Exit(code)
