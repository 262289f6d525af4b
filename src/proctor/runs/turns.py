"""Turn runs: dialogues and workflows, two kinds of one lifecycle through the run store
(`proctor.runs.turn_lifecycle`: open or resume the run, ask its turns, each committed as it is
answered, mark it, store its grade, write its files like any run's)

and the re-grade of a stored turn run (`proctor score`), which calls nothing. What differs
between the kinds is a row of `TURN_KINDS` (its grader version, how a stored run is graded again,
the exit code each outcome gives, how its command prints it and how `proctor run --resume`
goes on with it), never a check of a task's name elsewhere.

A run stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) asks again from the first turn without an answer. A dialogue that reached its
end, or stopped because the model's answers left the tree no way on, is finished; a workflow
that ended complete, by its budget or with an invalid output is finished (its verdict is the
outcome)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from proctor.calling.caller import ModelCaller
from proctor.dialogue.lines import dialogue_lines
from proctor.dialogue.loop import DialogueResult, grade_dialogue, run_dialogue
from proctor.dialogue.tree import DialogueTree
from proctor.errors import ConfigError
from proctor.runs.report import store_turn_grade
from proctor.runs.state import (
    EXIT_BUDGET,
    EXIT_CALLS_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INVALID_OUTPUT,
    EXIT_OK,
)
from proctor.runs.turn_kinds import DIALOGUE, WORKFLOW, turn_kind
from proctor.runs.turn_lifecycle import TurnRunDone, ask_in_store, grade_and_write
from proctor.stats.turn_scores import TurnRow, TurnScores
from proctor.store import RunStore
from proctor.store.turn_log import TurnLog
from proctor.tools.toolbox import ToolBox, ToolMode, standard_tools
from proctor.types import GenerationParams
from proctor.workflow.lines import workflow_lines
from proctor.workflow.loop import WorkflowResult, grade_workflow, run_workflow
from proctor.workflow.spec import Workflow

DIALOGUE_GRADER = "dialogue/1"
"""The rules of `grade_dialogue` (fact reading, stage scores, consistency); raise on a change."""
WORKFLOW_GRADER = "workflow/1"
"""The rules of `grade_workflow` (budget limits, output checks); raise on a change."""


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def dialogue_scores(result: DialogueResult) -> TurnScores:
    """The dialogue's grade as the reports show it."""
    turns = []
    for t in result.turns:
        notes = [f"→ {t.next} ({t.why_next})", *t.missed, *t.contradictions]
        if t.unscored:
            notes.append(f"unscored: {t.unscored}")
        if t.finish_reason == "length":
            notes.append("reply cut at max_tokens")
        turns.append(TurnRow(t.turn, t.stage, _score(t.score), "; ".join(notes)))
    consistency = "unscored" if result.consistency is None else f"{result.consistency:.2f}"
    return TurnScores(
        kind=DIALOGUE,
        model=result.model,
        outcome=result.status,
        reason=result.reason,
        metrics=(
            ("stage mean", _score(result.stage_mean)),
            ("consistency", consistency),
            ("contradictions", str(len(result.contradictions))),
            ("path", " → ".join(result.path)),
        ),
        turns=tuple(turns),
        problems=(
            *(f"contradiction: {c}" for c in result.contradictions),
            *(f"consistency unscored: {why}" for why in result.consistency_unscored),
        ),
        grader_version=DIALOGUE_GRADER,
        detail=result.to_json(),
    )


async def run_dialogue_in_store(
    tree: DialogueTree,
    caller: ModelCaller,
    params: GenerationParams,
    results_dir: Path,
    *,
    model: str,
    resume: str | None = None,
    on_run: Callable[[str], None] | None = None,
) -> tuple[TurnRunDone[DialogueResult], list[Path]]:
    """The run and the files written in its folder."""

    async def ask(log: TurnLog) -> DialogueResult:
        return await run_dialogue(tree, caller, params, log=log)

    done = await ask_in_store(
        results_dir,
        ask,
        lambda r: r.status in ("complete", "stopped"),
        on_run=on_run,
        kind=DIALOGUE,
        spec=tree.model_dump(mode="json", by_alias=True),
        model=model,
        lang=tree.lang,
        stages=[(s.id, s.ask) for s in tree.stages],
        params=params,
        settings={"max_tokens": params.max_tokens, "temperature": params.temperature},
        resume=resume,
    )
    return done, grade_and_write(results_dir, done.run_id, dialogue_scores(done.result))


def regrade_dialogue(store: RunStore, run_id: str) -> DialogueResult:
    """Grade a stored dialogue run again with the current rules and store the grade."""
    tree = DialogueTree.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_dialogue(tree, model, store.turns(run_id, model))
    store_turn_grade(store, run_id, dialogue_scores(result))
    return result


def workflow_scores(result: WorkflowResult, flow: Workflow) -> TurnScores:
    """The workflow's grade as the reports show it; its detail also holds the budget and each
    tool step's tool (the viewer's budget line and tool calls)."""
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
        kind=WORKFLOW,
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
        grader_version=WORKFLOW_GRADER,
        detail={
            **result.to_json(),
            "budget": flow.budget.model_dump(mode="json"),
            "tools": {s.id: s.tool for s in flow.steps if s.kind == "tool"},
        },
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
        kind=WORKFLOW,
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
    return done, grade_and_write(results_dir, done.run_id, workflow_scores(done.result, flow))


def regrade_workflow(store: RunStore, run_id: str) -> WorkflowResult:
    """Grade a stored workflow run again with the current rules and store the grade."""
    flow = Workflow.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_workflow(flow, model, store.turns(run_id, model))
    store_turn_grade(store, run_id, workflow_scores(result, flow))
    return result


TurnStart = Callable[
    [ModelCaller, Callable[[str], None]], Awaitable[tuple["TurnRunDone[Any]", list[Path]]]
]
"""Ask a turn run with this caller, telling `on_run` its id as soon as it has one; the run and
the files written in its folder."""


@dataclass(frozen=True)
class TurnResume:
    """A stored turn run, ready to be asked again from its first turn without an answer."""

    model: str
    tools: str
    """How a workflow's tools run (live, record, replay); "" for a dialogue."""
    start: TurnStart


def _stored_spec(store: RunStore, run_id: str, timeout: float) -> tuple[Any, str, Any]:
    """(the run's config, its one model, its generation settings with `timeout`)."""
    info = store.run_info(run_id)
    (model,) = info.models
    return store.run_config(run_id), model, replace(info.params, timeout_s=timeout)


def dialogue_start(
    tree: DialogueTree,
    params: GenerationParams,
    results_dir: Path,
    *,
    model: str,
    resume: str | None,
) -> TurnStart:
    """`run_dialogue_in_store` of these, once given a caller (`proctor dialogue`, and
    `proctor run --resume` of a dialogue run)."""
    return lambda caller, on_run: run_dialogue_in_store(
        tree, caller, params, results_dir, model=model, resume=resume, on_run=on_run
    )


def workflow_start(
    flow: Workflow,
    tools: ToolBox,
    params: GenerationParams,
    results_dir: Path,
    *,
    model: str,
    require_usage: bool,
    resume: str | None,
) -> TurnStart:
    """`run_workflow_in_store` of these, once given a caller (`proctor workflow`, and
    `proctor run --resume` of a workflow run)."""
    return lambda caller, on_run: run_workflow_in_store(
        flow, caller, tools, params, results_dir, model=model, require_usage=require_usage,
        resume=resume, on_run=on_run,
    )  # fmt: skip


def resume_dialogue(store: RunStore, run_id: str, timeout: float) -> TurnResume:
    """Go on with a stored dialogue run: the tree, model and settings it began with."""
    config, model, params = _stored_spec(store, run_id, timeout)
    tree = DialogueTree.model_validate(config["spec"])
    start = dialogue_start(tree, params, store.results_dir, model=model, resume=run_id)
    return TurnResume(model, "", start)


def resume_workflow(store: RunStore, run_id: str, timeout: float) -> TurnResume:
    """Go on with a stored workflow run: the workflow, model, settings and tool recording it
    began with."""
    config, model, params = _stored_spec(store, run_id, timeout)
    flow = Workflow.model_validate(config["spec"])
    mode, recording = config.get("tools"), config.get("recording")
    if mode not in ("live", "record", "replay"):
        raise ConfigError(f"workflow run {run_id} does not say how its tools were run")
    if mode != "live" and not isinstance(recording, str):
        raise ConfigError(
            f"workflow run {run_id} does not say where its tool recording is: resume it with "
            f"`proctor workflow FILE --{mode} --resume {run_id}`"
        )
    tool_mode: ToolMode = mode
    where = Path(recording) if isinstance(recording, str) else None
    tools = ToolBox(tool_mode, standard_tools(flow.documents), where)
    start = workflow_start(
        flow, tools, params, store.results_dir, model=model,
        require_usage=bool(config.get("require_usage")), resume=run_id,
    )  # fmt: skip
    return TurnResume(model, tool_mode, start)


@dataclass(frozen=True)
class TurnKind:
    """One kind of turn run: what `proctor score`, `report`, `gate`, `run --resume` and its own
    command need of it."""

    name: str
    grader_version: str
    regrade: Callable[[RunStore, str], object]
    """Grade a stored run again with the current rules (calling nothing) and store the grade."""
    exit_codes: Mapping[str, int]
    """The exit code of each outcome (`TurnScores.outcome`); one not named exits 0."""
    noun: str
    """What one of its turns is called ("turn", "step")."""
    outcome: Callable[[Any], str]
    """A result's outcome (a key of `exit_codes`)."""
    lines: Callable[[Any, str], list[str]]
    """A result as its command prints it (given how its tools ran, "" for none)."""
    resume: Callable[[RunStore, str, float], TurnResume]
    """A stored run, ready to go on (`proctor run --resume RUN`), under a new request timeout."""

    def exit_code(self, outcome: str) -> int:
        return self.exit_codes.get(outcome, EXIT_OK)


TURN_KINDS: Mapping[str, TurnKind] = {
    DIALOGUE: TurnKind(
        DIALOGUE,
        DIALOGUE_GRADER,
        regrade_dialogue,
        {
            "complete": EXIT_OK,
            "call_failed": EXIT_CALLS_FAILED,
            "stopped": EXIT_INVALID_OUTPUT,
            "unfinished": EXIT_INCOMPLETE,
        },
        noun="turn",
        outcome=lambda result: str(result.status),
        lines=dialogue_lines,
        resume=resume_dialogue,
    ),
    WORKFLOW: TurnKind(
        WORKFLOW,
        WORKFLOW_GRADER,
        regrade_workflow,
        {
            "complete": EXIT_OK,
            "call_failed": EXIT_CALLS_FAILED,
            "incomplete": EXIT_BUDGET,
            "invalid_output": EXIT_INVALID_OUTPUT,
        },
        noun="step",
        outcome=lambda result: str(result.outcome),
        lines=workflow_lines,
        resume=resume_workflow,
    ),
}


def resume_turn_run(results_dir: Path, run_id: str, kind: str, timeout: float) -> TurnResume:
    """The stored turn run `run_id` of `kind`, ready to go on as its own command would."""
    found = turn_kind(kind)
    if found is None:
        raise ConfigError(f"run {run_id} is not a dialogue or workflow run")
    with RunStore.open(results_dir) as store:
        return found.resume(store, run_id, timeout)
