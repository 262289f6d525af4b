"""A workflow run through the run store: find or start the run, run (or resume) the workflow with
each step committed as it ends, mark the run, and write `workflow.json` in its folder; and the
re-grade of a stored workflow run (`proctor score`), which calls nothing.

A run stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) re-asks from the first step without an answer; one that ended complete, by its
budget or with an invalid output is finished (its verdict is the outcome)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from proctor.calling.caller import ModelCaller
from proctor.report.turn_files import write_turn_result
from proctor.store import RunStore
from proctor.store.turn_log import TurnLog, TurnRunDone, ask_in_store
from proctor.types import GenerationParams
from proctor.workflow.executor import WorkflowResult, grade_workflow, run_workflow
from proctor.workflow.spec import Workflow
from proctor.workflow.tools import ToolBox

KIND = "workflow"
RESULT_FILE = "workflow.json"


def write_result(run_dir: Path, run_id: str, result: WorkflowResult) -> Path:
    return write_turn_result(run_dir, RESULT_FILE, run_id, result.to_json())


async def run_workflow_in_store(
    flow: Workflow,
    caller: ModelCaller,
    tools: ToolBox,
    params: GenerationParams,
    results_dir: Path,
    *,
    model: str,
    require_usage: bool = False,
    resume: str | None = None,
    on_run: Callable[[str], None] | None = None,
) -> tuple[TurnRunDone[WorkflowResult], Path]:
    """The run and the `workflow.json` written in its folder."""

    async def ask(log: TurnLog) -> WorkflowResult:
        return await run_workflow(flow, caller, tools, params, log=log, require_usage=require_usage)

    steps = [(s.id, s.prompt or f"{s.tool}({json.dumps(s.args)})") for s in flow.steps]
    done = await ask_in_store(
        results_dir,
        ask,
        lambda r: r.outcome != "call_failed",
        on_run=on_run,
        kind=KIND,
        spec=flow.model_dump(mode="json", by_alias=True),
        model=model,
        lang=flow.lang,
        stages=steps,
        params=params,
        settings={"tools": tools.mode, "require_usage": require_usage},
        resume=resume,
    )
    return done, write_result(done.run_dir, done.run_id, done.result)


def regrade_workflow(store: RunStore, run_id: str) -> tuple[WorkflowResult, Path]:
    """Grade a stored workflow run again with the current rules; rewrite its `workflow.json`."""
    flow = Workflow.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_workflow(flow, model, store.turns(run_id, model))
    return result, write_result(store.run_dir(run_id), run_id, result)
