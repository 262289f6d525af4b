"""`proctor workflow FILE -m MODEL [--record|--replay]`: run a workflow under its hard budget.

    proctor workflow contract-review-en -m local --replay   a shipped workflow, tools answered
                                                            from its shipped recording (offline)
    proctor workflow my-flow.json -m M --record             run tools for real once, recording
                                                            them beside the file
    proctor workflow my-flow.json -m M --replay             tools only from the recording; an
                                                            unrecorded call fails loudly

The recording is FILE with `.replay.jsonl` in place of `.json` unless --recording names one.
The run lives in the run store like any run (`proctor list`, `proctor score RUN`); each step is
committed as it ends, so the same command after a kill asks no finished step again. Prints the
steps, the limit that stopped it (if any) and the failed checks, stores its grade and writes the
run's files like any run's (results.json, summary.md, report.html), and exits with the
outcome's code: 0 complete, 4 call_failed, 5 incomplete (budget), 6 invalid_output.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import MaxAttempts, OneModel, RequestTimeout, ResultsDir, TurnResume
from proctor.cli.turns import ask_turn_run
from proctor.errors import ConfigError

if TYPE_CHECKING:
    from proctor.tools.toolbox import ToolBox
    from proctor.types import GenerationParams
    from proctor.workflow.spec import Workflow

BUILTIN = ("contract-review-en", "market-brief-zh")


def read_workflow(ref: str) -> tuple[Workflow, Path]:
    """The workflow and its default recording path."""
    from proctor.workflow.spec import parse_workflow

    path = Path(ref)
    if not path.exists() and ref in BUILTIN:
        path = Path(str(resources.files("proctor.datasets").joinpath("builtin", "workflows")))
        path = path / f"{ref}.json"
    if not path.exists():
        raise ConfigError(f"no workflow {ref!r}: give a file or one of {', '.join(BUILTIN)}")
    flow = parse_workflow(path.read_text(encoding="utf-8"), str(path))
    return flow, path.with_name(path.name.removesuffix(".json") + ".replay.jsonl")


def workflow_cmd(
    ref: Annotated[str, typer.Argument(metavar="FILE", help="Workflow file or shipped name.")],
    model: OneModel = "local",
    record: Annotated[bool, typer.Option("--record", help="Run tools once, record them.")] = False,
    replay: Annotated[
        bool, typer.Option("--replay", help="Tools only from the recording.")
    ] = False,
    recording: Annotated[
        Path | None, typer.Option(help="Recording file (default: beside FILE).")
    ] = None,
    timeout: RequestTimeout = 120.0,
    max_attempts: MaxAttempts = 4,
    require_usage: Annotated[
        bool,
        typer.Option(
            "--require-usage",
            help="Refuse a reply whose server reports no token usage (else it is estimated).",
        ),
    ] = False,
    resume: TurnResume = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Run a multi-step workflow under hard token, time and tool-call limits.

    A request's --timeout never runs past the time budget."""
    from proctor.tools.toolbox import ToolBox, ToolMode, standard_tools
    from proctor.types import GenerationParams

    if record and replay:
        raise ConfigError("--record and --replay exclude each other")
    if max_attempts < 1:
        raise typer.BadParameter("--max-attempts must be at least 1")
    flow, default_recording = read_workflow(ref)
    mode: ToolMode = "record" if record else "replay" if replay else "live"
    tools = ToolBox(mode, standard_tools(flow.documents), recording or default_recording)
    params = GenerationParams(timeout_s=timeout)
    ask_workflow(flow, tools, model, params, max_attempts, require_usage, resume, results_dir)


def ask_workflow(
    flow: Workflow,
    tools: ToolBox,
    model: str,
    params: GenerationParams,
    max_attempts: int,
    require_usage: bool,
    resume: str | None,
    results_dir: Path,
) -> None:
    """Ask (or resume) the workflow, print it, and exit with its outcome's code."""
    from proctor.runs.turn_kinds import WORKFLOW
    from proctor.runs.turns import TURN_KINDS, workflow_start

    start = workflow_start(
        flow, tools, params, results_dir, model=model, require_usage=require_usage, resume=resume
    )
    ask_turn_run(TURN_KINDS[WORKFLOW], results_dir, model, max_attempts, start, tools.mode)
