"""`proctor list runs`: the results folder's runs (`proctor.runs.listing`), as a table."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from proctor.report.runs_table import runs_table
from proctor.runs.listing import run_lines


def print_runs(console: Console, results_dir: Path) -> None:
    console.print(runs_table(f"Runs in {results_dir}", run_lines(results_dir)))
