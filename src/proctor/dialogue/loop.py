"""Drive one staged dialogue through a `ModelCaller`, keeping each turn in a `TurnLog` as it is
answered: each turn sends the whole history, reads the facts of the reply into the fact graph,
checks them against earlier turns, scores the stage and picks the next stage by the tree's
branch rules. A failed call ends the dialogue as `call_failed`, never as a wrong answer.

Resuming: the answered turns of the log are taken as they were asked (the path is what was
stored), and the dialogue goes on from the first unanswered turn. Re-grading (`grade_dialogue`)
reads the stored turns again with the current rules and calls nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, Literal

from proctor.calling.caller import CallFailure, ModelCaller
from proctor.dialogue.facts import FactGraph, extract_facts
from proctor.dialogue.flow import END, next_stage, render, score_stage
from proctor.dialogue.tree import DialogueTree
from proctor.store.turn_log import MemoryTurns, TurnLog, answered_prefix
from proctor.store.turns import Turn
from proctor.types import GenerationParams, Message, Prompt

DialogueStatus = Literal["complete", "call_failed", "stopped", "unfinished"]


@dataclass(frozen=True)
class TurnResult:
    turn: int
    stage: str
    asked: str
    reply: str
    facts: tuple[dict[str, Any], ...]
    contradictions: tuple[str, ...]
    score: float | None
    met: tuple[str, ...]
    missed: tuple[str, ...]
    next: str
    why_next: str
    tokens: int
    finish_reason: str = "stop"
    """"length": the reply was cut at max_tokens, so a fact in it may be missing."""
    bindings: dict[str, str] = field(default_factory=dict)
    """Values of earlier turns filled into this turn's question."""
    unscored: str = ""
    """Why the stage is not scored, when it has expectations but is not."""


@dataclass(frozen=True)
class DialogueResult:
    tree: str
    model: str
    status: DialogueStatus
    reason: str
    turns: tuple[TurnResult, ...]
    path: tuple[str, ...]
    consistency: float | None
    """None: unscored (see `consistency_unscored`)."""
    contradictions: tuple[str, ...]
    stage_mean: float | None
    fact_graph: tuple[dict[str, Any], ...] = field(default=())
    consistency_unscored: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class DialogueState:
    """The pure state of a dialogue: its history, fact graph and graded turns so far."""

    def __init__(self, tree: DialogueTree) -> None:
        self.tree = tree
        self.graph = FactGraph(tree)
        self.history: list[Message] = [Message("system", tree.system)] if tree.system else []
        self.turns: list[TurnResult] = []
        self.stage_id = tree.stages[0].id

    def take(
        self,
        stage_id: str,
        asked: str,
        reply: str,
        bindings: dict[str, str],
        tokens: int,
        finish_reason: str,
    ) -> None:
        """Add one answered turn: read its facts, check and score it, pick the next stage."""
        stage = self.tree.stage(stage_id)
        self.history += [Message("user", asked), Message("assistant", reply)]
        turn = len(self.turns) + 1
        facts, corrections = extract_facts(reply, self.tree, turn, stage.id)
        made = self.graph.add(facts, corrections)
        graded = score_stage(stage, facts, made, bindings)
        nxt, why = next_stage(self.tree, stage, self.graph)
        self.turns.append(
            TurnResult(
                turn=turn,
                stage=stage.id,
                asked=asked,
                reply=reply,
                facts=tuple(f.row() for f in facts),
                contradictions=tuple(c.describe() for c in made),
                score=graded.score,
                met=graded.met,
                missed=graded.missed,
                next=nxt,
                why_next=why,
                tokens=tokens,
                finish_reason=finish_reason,
                bindings=bindings,
                unscored=graded.unscored,
            )
        )
        self.stage_id = nxt

    def result(self, model: str, status: DialogueStatus, reason: str) -> DialogueResult:
        scored = [t.score for t in self.turns if t.score is not None]
        return DialogueResult(
            tree=self.tree.id,
            model=model,
            status=status,
            reason=reason,
            turns=tuple(self.turns),
            path=tuple(t.stage for t in self.turns),
            consistency=self.graph.consistency,
            contradictions=tuple(c.describe() for c in self.graph.contradictions),
            stage_mean=sum(scored) / len(scored) if scored else None,
            fact_graph=tuple(f.row() for f in self.graph.facts),
            consistency_unscored=self.graph.why_unscored,
        )


def _replay(state: DialogueState, stored: Sequence[Turn]) -> None:
    for turn in stored:
        state.take(
            turn.step,
            turn.asked,
            turn.text,
            dict(turn.bindings),
            turn.usage.total_tokens,
            turn.finish_reason,
        )


async def run_dialogue(
    tree: DialogueTree,
    caller: ModelCaller,
    params: GenerationParams,
    *,
    log: TurnLog | None = None,
) -> DialogueResult:
    log = log or MemoryTurns(model=caller.provider.name)
    model = caller.provider.name
    state = DialogueState(tree)
    _replay(state, log.answered())
    while state.stage_id != END:
        if len(state.turns) >= len(tree.stages):
            return state.result(model, "stopped", "more turns than stages: the branch rules loop")
        stage = tree.stage(state.stage_id)
        text, bindings, why_not = render(stage, state.graph)
        if text is None:
            return state.result(model, "stopped", why_not)
        position = len(state.turns) + 1
        prompt = Prompt((*state.history, Message("user", text)), "dialogue", tree.lang)
        result = await caller.call(prompt, params)
        turn = partial(
            Turn,
            log.run_id,
            model,
            position,
            stage.id,
            "model",
            asked=text,
            bindings=bindings,
            attempts=result.attempts,
        )
        if isinstance(result, CallFailure):
            error = f"{result.error_type}: {result.error}"
            log.save(turn(status="call_failed", text="", error=error))
            return state.result(model, "call_failed", f"stage {stage.id!r}: {error}")
        c = result.completion
        log.save(
            turn(
                status="ok",
                text=c.text,
                finish_reason=c.finish_reason,
                usage=c.usage,
                usage_reported=c.usage.known and c.usage.total_tokens > 0,
                latency_s=c.latency_s,
                reported_model=c.model,
            )
        )
        state.take(stage.id, text, c.text, bindings, c.usage.total_tokens, c.finish_reason)
    return state.result(model, "complete", "")


def grade_dialogue(tree: DialogueTree, model: str, turns: Sequence[Turn]) -> DialogueResult:
    """The result of a stored dialogue under the current rules, calling nothing."""
    answered = answered_prefix(list(turns))
    state = DialogueState(tree)
    _replay(state, answered)
    if state.stage_id == END:
        return state.result(model, "complete", "")
    if len(state.turns) >= len(tree.stages):
        return state.result(model, "stopped", "more turns than stages: the branch rules loop")
    failed = next((t for t in turns if t.position == len(answered) + 1), None)
    if failed is not None:
        return state.result(model, "call_failed", f"stage {failed.step!r}: {failed.error}")
    stage = tree.stage(state.stage_id)
    text, _, why_not = render(stage, state.graph)
    if text is None:
        return state.result(model, "stopped", why_not)
    return state.result(
        model, "unfinished", f"interrupted before stage {stage.id!r}: the same command resumes it"
    )
