"""A workflow run through the run store: find or start the run, run (or resume) the workflow with
each step committed as it ends, mark the run, store its grade (table `turn_grades`) and write the
run's files (results.json, summary.md, report.html) like any run's; and the re-grade of a stored
workflow run (`proctor score`), which calls nothing.

A run stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) re-asks from the first step without an answer; one that ended complete, by its
budget or with an invalid output is finished (its verdict is the outcome)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from proctor.calling.caller import ModelCaller
from proctor.runs.report import run_statistics, store_turn_grade, write_report
from proctor.stats.turn_scores import TurnRow, TurnScores
from proctor.store import RunStore
from proctor.store.turn_log import TurnLog, TurnRunDone, ask_in_store
from proctor.tools.toolbox import ToolBox
from proctor.types import GenerationParams
from proctor.workflow.loop import WorkflowResult, grade_workflow, run_workflow
from proctor.workflow.spec import Workflow

KIND = "workflow"
GRADER_VERSION = "workflow/1"
"""The rules of `grade_workflow` (budget limits, output checks); raise on a change."""


def workflow_scores(result: WorkflowResult) -> TurnScores:
    """The workflow's grade as the reports show it."""
    tokens = str(result.tokens)
    if result.tokens_estimated:
        tokens += f" ({result.tokens_estimated} estimated: the server reported no usage)"
    turns = tuple(
        TurnRow(
            n,
            s.step,
            "—",
            f"{s.kind}, {s.tokens} tokens{' estimated' if s.tokens_estimated else ''},"
            f" {s.seconds:.1f} s",
        )
        for n, s in enumerate(result.steps, 1)
    )
    return TurnScores(
        kind=KIND,
        model=result.model,
        outcome=result.outcome,
        reason=result.reason,
        metrics=(
            ("score", "—" if result.score is None else f"{result.score:.0f}"),
            ("steps", f"{len(result.steps)}/{result.steps_total}"),
            ("stopped by", result.stopped_by or "—"),
            ("tokens", tokens),
            ("tool calls", str(result.tool_calls)),
            ("wall time", f"{result.wall_s:.1f} s"),
        ),
        turns=turns,
        problems=tuple(f"failed check: {p}" for p in result.failed_checks),
        grader_version=GRADER_VERSION,
        detail=result.to_json(),
    )


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
) -> tuple[TurnRunDone[WorkflowResult], list[Path]]:
    """The run and the files written in its folder."""

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
        # `proctor run --resume RUN` finds the recording without the workflow's file
        noted={"recording": str(tools.recording.resolve())} if tools.recording else None,
    )
    with RunStore.open(results_dir) as store:
        store_turn_grade(store, done.run_id, workflow_scores(done.result))
        return done, write_report(store, run_statistics(store, done.run_id, None))


def regrade_workflow(store: RunStore, run_id: str) -> WorkflowResult:
    """Grade a stored workflow run again with the current rules and store the grade."""
    flow = Workflow.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_workflow(flow, model, store.turns(run_id, model))
    store_turn_grade(store, run_id, workflow_scores(result))
    return result
