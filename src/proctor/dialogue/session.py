"""A dialogue run through the run store: find or start the run, run (or resume) the dialogue with
each turn committed as it is answered, mark the run, and write `dialogue.json` in its folder;
and the re-grade of a stored dialogue run (`proctor score`), which calls nothing.

A dialogue stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) asks again from the first turn without an answer; one that reached its end, or
stopped because the model's answers left the tree no way on, is finished."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from proctor.calling.caller import ModelCaller
from proctor.dialogue.executor import DialogueResult, grade_dialogue, run_dialogue
from proctor.dialogue.tree import DialogueTree
from proctor.report.turn_files import write_turn_result
from proctor.store import RunStore
from proctor.store.turn_log import TurnLog, TurnRunDone, ask_in_store
from proctor.types import GenerationParams

KIND = "dialogue"
RESULT_FILE = "dialogue.json"


def write_result(run_dir: Path, run_id: str, result: DialogueResult) -> Path:
    return write_turn_result(run_dir, RESULT_FILE, run_id, result.to_json())


async def run_dialogue_in_store(
    tree: DialogueTree,
    caller: ModelCaller,
    params: GenerationParams,
    results_dir: Path,
    *,
    model: str,
    resume: str | None = None,
    on_run: Callable[[str], None] | None = None,
) -> tuple[TurnRunDone[DialogueResult], Path]:
    """The run and the `dialogue.json` written in its folder."""

    async def ask(log: TurnLog) -> DialogueResult:
        return await run_dialogue(tree, caller, params, log=log)

    done = await ask_in_store(
        results_dir,
        ask,
        lambda r: r.status in ("complete", "stopped"),
        on_run=on_run,
        kind=KIND,
        spec=tree.model_dump(mode="json", by_alias=True),
        model=model,
        lang=tree.lang,
        stages=[(s.id, s.ask) for s in tree.stages],
        params=params,
        settings={"max_tokens": params.max_tokens, "temperature": params.temperature},
        resume=resume,
    )
    return done, write_result(done.run_dir, done.run_id, done.result)


def regrade_dialogue(store: RunStore, run_id: str) -> tuple[DialogueResult, Path]:
    """Grade a stored dialogue run again with the current rules; rewrite its `dialogue.json`."""
    tree = DialogueTree.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_dialogue(tree, model, store.turns(run_id, model))
    return result, write_result(store.run_dir(run_id), run_id, result)
