"""`proctor workflow FILE -m MODEL [--record|--replay]`: run a workflow under its hard budget.

    proctor workflow contract-review-en -m local --replay   a shipped workflow, tools answered
                                                            from its shipped recording (offline)
    proctor workflow my-flow.json -m M --record             run tools for real once, recording
                                                            them beside the file
    proctor workflow my-flow.json -m M --replay             tools only from the recording; an
                                                            unrecorded call fails loudly

The recording is FILE with `.replay.jsonl` in place of `.json` unless --recording names one.
Prints the steps, the limit that stopped it (if any) and the failed checks, and writes the
result as JSON under RESULTS/workflows/.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor.cli.console import SafeConsole
from proctor.errors import ConfigError

if TYPE_CHECKING:
    from proctor.workflow.executor import WorkflowResult
    from proctor.workflow.spec import Workflow

DEFAULT_RESULTS = Path("proctor-results")
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
    model: Annotated[str, typer.Option("--model", "-m", help="Model string.")] = "local",
    record: Annotated[bool, typer.Option("--record", help="Run tools once, record them.")] = False,
    replay: Annotated[
        bool, typer.Option("--replay", help="Tools only from the recording.")
    ] = False,
    recording: Annotated[
        Path | None, typer.Option(help="Recording file (default: beside FILE).")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 120.0,
    results_dir: Annotated[
        Path, typer.Option("--results-dir", "-r", help="Folder for results.")
    ] = DEFAULT_RESULTS,
) -> None:
    """Run a multi-step workflow under hard token, time and tool-call limits."""
    from proctor.calling.caller import ModelCaller
    from proctor.cli.dialogue import safe_name
    from proctor.providers.registry import make_provider
    from proctor.report.atomic import write_text_atomic
    from proctor.types import GenerationParams
    from proctor.workflow.executor import run_workflow
    from proctor.workflow.tools import ToolBox, ToolMode, standard_tools

    if record and replay:
        raise ConfigError("--record and --replay exclude each other")
    flow, default_recording = read_workflow(ref)
    mode: ToolMode = "record" if record else "replay" if replay else "live"
    tools = ToolBox(mode, standard_tools(flow.documents), recording or default_recording)
    params = GenerationParams(timeout_s=timeout)

    async def go() -> WorkflowResult:
        provider = make_provider(model)
        try:
            return await run_workflow(flow, ModelCaller(provider), tools, params)
        finally:
            await provider.aclose()

    result = asyncio.run(go())
    console = SafeConsole()
    console.print(
        f"{result.workflow} · {result.model} · {mode} · {result.status}"
        f" · {len(result.steps)}/{result.steps_total} steps · {result.tokens} tokens"
        f" · {result.tool_calls} tool calls · {result.wall_s:.1f} s",
        markup=False,
    )
    for s in result.steps:
        console.print(f"  {s.step} ({s.kind}, {s.tokens} tokens, {s.seconds:.1f} s)", markup=False)
    if result.reason:
        console.print(f"  stopped: {result.reason}", markup=False)
    for problem in result.failed_checks:
        console.print(f"  failed check: {problem}", markup=False)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = results_dir / "workflows" / f"{flow.id}-{safe_name(model)}-{stamp}.json"
    write_text_atomic(out, json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    console.print(f"written {out}")
