"""A dialogue run through the run store: find or start the run, run (or resume) the dialogue with
each turn committed as it is answered, mark the run, store its grade (table `turn_grades`) and
write the run's files (results.json, summary.md, report.html) like any run's; and the re-grade of
a stored dialogue run (`proctor score`), which calls nothing.

A dialogue stopped by a failed call (or interrupted) stays unfinished, so the same command (or
`--resume RUN`) asks again from the first turn without an answer; one that reached its end, or
stopped because the model's answers left the tree no way on, is finished."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from proctor.calling.caller import ModelCaller
from proctor.dialogue.loop import DialogueResult, grade_dialogue, run_dialogue
from proctor.dialogue.tree import DialogueTree
from proctor.runs.report import run_statistics, store_turn_grade, write_report
from proctor.stats.turn_scores import TurnRow, TurnScores
from proctor.store import RunStore
from proctor.store.turn_log import TurnLog, TurnRunDone, ask_in_store
from proctor.types import GenerationParams

KIND = "dialogue"
GRADER_VERSION = "dialogue/1"
"""The rules of `grade_dialogue` (fact reading, stage scores, consistency); raise on a change."""


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
        kind=KIND,
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
        grader_version=GRADER_VERSION,
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
        kind=KIND,
        spec=tree.model_dump(mode="json", by_alias=True),
        model=model,
        lang=tree.lang,
        stages=[(s.id, s.ask) for s in tree.stages],
        params=params,
        settings={"max_tokens": params.max_tokens, "temperature": params.temperature},
        resume=resume,
    )
    with RunStore.open(results_dir) as store:
        store_turn_grade(store, done.run_id, dialogue_scores(done.result))
        return done, write_report(store, run_statistics(store, done.run_id, None))


def regrade_dialogue(store: RunStore, run_id: str) -> DialogueResult:
    """Grade a stored dialogue run again with the current rules and store the grade."""
    tree = DialogueTree.model_validate(store.run_config(run_id)["spec"])
    (model,) = store.run_info(run_id).models
    result = grade_dialogue(tree, model, store.turns(run_id, model))
    store_turn_grade(store, run_id, dialogue_scores(result))
    return result
