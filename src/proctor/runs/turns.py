"""Turn runs: dialogues and workflows, two kinds of one lifecycle through the run store.

    open (or find, or resume) the run → ask its turns, each committed as it is answered →
    mark it complete or interrupted → store its grade (table `turn_grades`) → write its files
    (results.json, summary.md, report.html) like any run's

and the re-grade of a stored turn run (`proctor score`), which calls nothing. What differs
between the kinds is a row of `TURN_KINDS` (its grader version, how a stored run is graded again,
and the exit code each outcome gives), never a check of a task's name elsewhere.

A run stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) asks again from the first turn without an answer. A dialogue that reached its
end, or stopped because the model's answers left the tree no way on, is finished; a workflow
that ended complete, by its budget or with an invalid output is finished (its verdict is the
outcome)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from proctor.calling.caller import ModelCaller
from proctor.dialogue.loop import DialogueResult, grade_dialogue, run_dialogue
from proctor.dialogue.tree import DialogueTree
from proctor.errors import ConfigError
from proctor.runs.report import run_statistics, store_turn_grade, write_report
from proctor.runs.state import (
    EXIT_BUDGET,
    EXIT_CALLS_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INVALID_OUTPUT,
    EXIT_OK,
)
from proctor.stats.turn_scores import TurnRow, TurnScores
from proctor.store import RunStore
from proctor.store.run_ids import new_run_id
from proctor.store.turn_log import StoredTurns, TurnLog
from proctor.tools.toolbox import ToolBox
from proctor.types import GenerationParams, RunInfo, Sample
from proctor.workflow.loop import WorkflowResult, grade_workflow, run_workflow
from proctor.workflow.spec import Workflow

DIALOGUE = "dialogue"
DIALOGUE_GRADER = "dialogue/1"
"""The rules of `grade_dialogue` (fact reading, stage scores, consistency); raise on a change."""
WORKFLOW = "workflow"
WORKFLOW_GRADER = "workflow/1"
"""The rules of `grade_workflow` (budget limits, output checks); raise on a change."""


@dataclass(frozen=True)
class TurnRun:
    """A dialogue or workflow run in the store: its id, and whether it was found unfinished."""

    run_id: str
    resumed: bool


def open_turn_run(
    store: RunStore,
    *,
    kind: str,
    spec: Mapping[str, Any],
    model: str,
    lang: str,
    stages: Sequence[tuple[str, str]],
    params: GenerationParams,
    settings: Mapping[str, object],
    resume: str | None = None,
) -> TurnRun:
    """The run to ask `spec` (a dialogue tree or a workflow, as JSON) of `model` in: `resume`
    when named, else the newest unfinished run of the same spec, model and `settings`, else a
    new one (task `kind`, one sample per stage or step: (id, text))."""
    spec_json = json.dumps(dict(spec), ensure_ascii=False, sort_keys=True)
    spec_hash = hashlib.sha256(spec_json.encode("utf-8")).hexdigest()
    identity = {"kind": kind, "spec": spec_hash, "model": model, **settings}
    fingerprint = hashlib.sha256(
        json.dumps(identity, sort_keys=True, default=str).encode("utf-8")
    ).hexdigest()[:32]
    if resume is not None:
        run_id = store.resolve(resume)
        config = store.run_config(run_id)
        if config.get("kind") != kind:
            raise ConfigError(f"run {run_id} is not a {kind} run")
        if config.get("spec") != json.loads(spec_json):
            raise ConfigError(
                f"run {run_id} was asked with another version of {kind} {spec.get('id', '')!r}: "
                "resume it with the file it began with, or start a new run"
            )
        if store.run_info(run_id).models != (model,):
            raise ConfigError(f"run {run_id} asked {store.run_info(run_id).models[0]}, not {model}")
        return TurnRun(run_id, True)
    found = store.find_resumable(fingerprint)
    if found is not None:
        return TurnRun(found, True)
    run_id = new_run_id(f"{kind}-{spec.get('id', '')}")
    info = RunInfo(
        run_id=run_id,
        task=kind,
        models=(model,),
        dataset_hash=f"sha256:{spec_hash}",
        dataset_size=len(stages),
        generator_version=f"{kind}:{spec.get('id', '')}",
        prompt_variant=kind,
        lang=lang,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        params=params,
    )
    samples = [Sample(id=i, input=text, target="", answer_type="text") for i, text in stages]
    store.create_run(info, samples, fingerprint, {"kind": kind, "spec": dict(spec), **settings})
    return TurnRun(run_id, False)


R = TypeVar("R")


def _grade_and_write(results_dir: Path, run_id: str, scores: TurnScores) -> list[Path]:
    """Store a turn run's grade and write its files (results.json, summary.md, report.html)."""
    with RunStore.open(results_dir) as store:
        store_turn_grade(store, run_id, scores)
        return write_report(store, run_statistics(store, run_id, None))


@dataclass(frozen=True)
class TurnRunDone(Generic[R]):
    """A dialogue or workflow run that this command asked (or resumed) and ended."""

    run_id: str
    run_dir: Path
    resumed: int
    """Turns taken from the store instead of being asked again."""
    result: R


async def ask_in_store(
    results_dir: Path,
    ask: Callable[[TurnLog], Awaitable[R]],
    finished: Callable[[R], bool],
    *,
    on_run: Callable[[str], None] | None = None,
    noted: Mapping[str, object] | None = None,
    **opening: Any,
) -> TurnRunDone[R]:
    """Open (or find, see `open_turn_run`) the run, note `noted` in its config (what a resume
    needs that is no part of the run's identity; a key already there keeps its value), `ask` it
    with its stored turns as the log,
    and mark it complete when `finished(result)`, else interrupted (resumable); interrupted too
    when `ask` is stopped by anything."""
    with RunStore.open(results_dir) as store:
        run = open_turn_run(store, **opening)
        if noted:
            store.add_run_config(run.run_id, noted)
        if on_run is not None:
            on_run(run.run_id)  # so that an interrupted command can say which run to resume
        log = StoredTurns(store, run.run_id, str(opening["model"]))
        resumed = len(log.answered())
        store.set_status(run.run_id, "running")
        try:
            result = await ask(log)
        except BaseException:
            store.set_status(run.run_id, "interrupted")
            raise
        store.set_status(run.run_id, "complete" if finished(result) else "interrupted")
        return TurnRunDone(run.run_id, store.run_dir(run.run_id), resumed, result)


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
    return done, _grade_and_write(results_dir, done.run_id, dialogue_scores(done.result))


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
    return done, _grade_and_write(results_dir, done.run_id, workflow_scores(done.result, flow))


def regrade_workflow(store: RunStore, run_id: str) -> WorkflowResult:
    """Grade a stored workflow run again with the current rules and store the grade."""
    flow = Workflow.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_workflow(flow, model, store.turns(run_id, model))
    store_turn_grade(store, run_id, workflow_scores(result, flow))
    return result


@dataclass(frozen=True)
class TurnKind:
    """One kind of turn run: what `proctor score`, `report` and `gate` need of it."""

    name: str
    grader_version: str
    regrade: Callable[[RunStore, str], object]
    """Grade a stored run again with the current rules (calling nothing) and store the grade."""
    exit_codes: Mapping[str, int]
    """The exit code of each outcome (`TurnScores.outcome`); one not named exits 0."""

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
    ),
}


def turn_kind(task: str) -> TurnKind | None:
    """The kind of turn run a stored run's task names, or None for a run of samples."""
    return TURN_KINDS.get(task)
