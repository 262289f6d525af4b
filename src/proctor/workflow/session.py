"""A workflow run through the run store: find or start the run, run (or resume) the workflow with
each step committed as it ends, mark the run, and write `workflow.json` in its folder; and the
re-grade of a stored workflow run (`proctor score`), which calls nothing.

A run stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) re-asks from the first step without an answer; one that ended complete, by its
budget or with an invalid output is finished (its verdict is the outcome)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.calling.caller import ModelCaller
from proctor.report.atomic import write_text_atomic
from proctor.store import RunStore
from proctor.store.turn_log import StoredTurns, open_turn_run
from proctor.types import GenerationParams
from proctor.workflow.executor import WorkflowResult, grade_workflow, run_workflow
from proctor.workflow.spec import Workflow
from proctor.workflow.tools import ToolBox

KIND = "workflow"
RESULT_FILE = "workflow.json"


@dataclass(frozen=True)
class WorkflowRun:
    run_id: str
    run_dir: Path
    resumed_steps: int
    """Steps taken from the store instead of being asked again."""
    result: WorkflowResult
    written: Path


def spec_of(flow: Workflow) -> dict[str, Any]:
    return flow.model_dump(mode="json", by_alias=True)


def write_result(run_dir: Path, run_id: str, result: WorkflowResult) -> Path:
    out = run_dir / RESULT_FILE
    doc = {"run_id": run_id, **result.to_json()}
    write_text_atomic(out, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return out


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
) -> WorkflowRun:
    with RunStore.open(results_dir) as store:
        run = open_turn_run(
            store,
            kind=KIND,
            spec=spec_of(flow),
            model=model,
            lang=flow.lang,
            stages=[(s.id, s.prompt or f"{s.tool}({json.dumps(s.args)})") for s in flow.steps],
            params=params,
            settings={"tools": tools.mode, "require_usage": require_usage},
            resume=resume,
        )
        if on_run is not None:
            on_run(run.run_id)  # so that an interrupted command can say which run to resume
        log = StoredTurns(store, run.run_id, model)
        store.set_status(run.run_id, "running")
        try:
            result = await run_workflow(
                flow, caller, tools, params, log=log, require_usage=require_usage
            )
        except BaseException:
            store.set_status(run.run_id, "interrupted")
            raise
        store.set_status(
            run.run_id, "interrupted" if result.outcome == "call_failed" else "complete"
        )
        run_dir = store.run_dir(run.run_id)
    resumed = sum(1 for s in result.steps if s.resumed)
    return WorkflowRun(
        run.run_id, run_dir, resumed, result, write_result(run_dir, run.run_id, result)
    )


def regrade_workflow(store: RunStore, run_id: str) -> tuple[WorkflowResult, Path]:
    """Grade a stored workflow run again with the current rules; rewrite its `workflow.json`."""
    config = store.run_config(run_id)
    flow = Workflow.model_validate(config["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_workflow(flow, model, store.turns(run_id, model))
    run_dir = store.run_dir(run_id)
    return result, write_result(run_dir, run_id, result)
