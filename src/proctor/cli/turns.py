"""What `proctor dialogue` and `proctor workflow` share: asking under Ctrl-C (exit 130 with the run
to resume) and the closing lines of a run."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from proctor.cli.stop_signals import interrupted_by, interrupted_exit_code

if TYPE_CHECKING:
    from rich.console import Console

R = TypeVar("R")


def interrupted(kind: str, started: Sequence[str], results_dir: Path) -> None:
    """One line on stderr: what was kept and the command that goes on."""
    from proctor.cli.console import SafeConsole

    err = SafeConsole(stderr=True)
    stopped = interrupted_by()
    if not started:
        err.print(f"{stopped} before the {kind} run began: nothing was stored", markup=False)
        return
    run_id = started[-1]
    err.print(
        f"{stopped}: the answered turns of {kind} run {run_id} are stored in {results_dir}; "
        f"the same command (or `proctor {kind} FILE --resume {run_id}`) goes on from there",
        markup=False,
    )


def print_run_end(
    console: Console, run_id: str, written: Sequence[Path], *, failed: str = ""
) -> None:
    """The run's id and files; when a call failed, how to ask it again (`failed`: turn or step)."""
    console.print(f"run {run_id} · folder {written[0].parent if written else ''}", markup=False)
    for path in written:
        console.print(f"  {path}", markup=False)
    if failed:
        console.print(f"  the same command (or --resume {run_id}) asks the failed {failed} again")


def ask_or_interrupted(
    kind: str, results_dir: Path, go: Callable[[list[str]], Coroutine[Any, Any, R]]
) -> R:
    """`asyncio.run(go(started))`; on Ctrl-C, say what was kept and exit 130."""
    started: list[str] = []
    try:
        import asyncio  # here: `proctor --help` imports this module and needs none of it

        return asyncio.run(go(started))
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM / SIGHUP handed on as one (stop_signals)
        interrupted(kind, started, results_dir)
        raise typer.Exit(interrupted_exit_code()) from None


def resume_turn_run(
    results_dir: Path, run_id: str, kind: str, *, timeout: float, max_attempts: int
) -> None:
    """`proctor run --resume RUN` of a dialogue or workflow run: go on as its own command would,
    with the tree or workflow, model and settings the run began with (from the store)."""
    from proctor.errors import ConfigError
    from proctor.store import RunStore

    with RunStore.open(results_dir) as store:
        config = store.run_config(run_id)
        info = store.run_info(run_id)
    (model,) = info.models
    params = replace(info.params, timeout_s=timeout)
    if kind == "dialogue":
        from proctor.cli.dialogue import ask_dialogue
        from proctor.dialogue.tree import DialogueTree

        tree = DialogueTree.model_validate(config["spec"])
        ask_dialogue(tree, model, params, max_attempts, run_id, results_dir)
        return
    from proctor.cli.workflow import ask_workflow
    from proctor.tools.toolbox import ToolBox, ToolMode, standard_tools
    from proctor.workflow.spec import Workflow

    flow = Workflow.model_validate(config["spec"])
    mode = config.get("tools")
    recording = config.get("recording")
    if mode not in ("live", "record", "replay"):
        raise ConfigError(f"workflow run {run_id} does not say how its tools were run")
    if mode != "live" and not isinstance(recording, str):
        raise ConfigError(
            f"workflow run {run_id} does not say where its tool recording is: resume it with "
            f"`proctor workflow FILE --{mode} --resume {run_id}`"
        )
    tool_mode: ToolMode = mode
    tools = ToolBox(
        tool_mode,
        standard_tools(flow.documents),
        Path(recording) if isinstance(recording, str) else None,
    )
    require_usage = bool(config.get("require_usage"))
    ask_workflow(flow, tools, model, params, max_attempts, require_usage, run_id, results_dir)
