"""`proctor score RUN --diff`: the grader change (`proctor.runs.score_diff`) printed, every
flipped verdict old → new with both rules and an excerpt of the reply, then the paired test of
the new grader against the old one, and the path of `grader_diff.json`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from proctor.runs.score_diff import GradingDiff, grading_before, grading_diff


def score_with_diff(
    run_ref: str, results_dir: Path, grade: Callable[[], None], console: Console
) -> None:
    """Read the run's grades, `grade` it (re-grade, report, exit code), then print the diff,
    also when `grade` exits with the run's own code (incomplete, calls failed)."""
    before = grading_before(results_dir, run_ref)
    try:
        grade()
    except typer.Exit:
        print_grading_diff(grading_diff(before, results_dir), console)
        raise
    print_grading_diff(grading_diff(before, results_dir), console)


def print_grading_diff(diff: GradingDiff, console: Console) -> None:
    old_name = diff.old_grader or "never graded"
    console.print(
        Text(
            f"Grader change: {old_name} → {diff.new_grader} ({diff.answers} answers re-graded)",
            "bold",
        )
    )
    if not diff.had_old:
        console.print("no earlier grades were stored: there is nothing to compare yet")
    console.print(f"{len(diff.flipped)} verdicts flipped" + (":" if diff.flipped else "."))
    for flip in diff.flipped:
        model, sample, epoch = flip.key
        was, now = flip.was, flip.now
        where = f"{model} {sample}" + (f" #{epoch}" if epoch else "")
        console.print(
            Text(
                f"  {where}: {was.outcome} ({was.rule}) → {now.outcome} ({now.rule})"
                f"  {flip.excerpt!r}"
            )
        )
    console.print(Text(str(diff.paired["sentence"])))
    console.print(Text(f"  {diff.path}"))
