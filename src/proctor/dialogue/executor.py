"""Drive one staged dialogue through a `ModelCaller`: each turn sends the whole history, reads the
facts of the reply into the fact graph, checks them against earlier turns, scores the stage and
picks the next stage by the tree's branch rules. A failed call ends the dialogue as
`call_failed`, never as a wrong answer."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from proctor.calling.caller import CallFailure, ModelCaller
from proctor.dialogue.facts import FactGraph, extract_facts
from proctor.dialogue.flow import END, next_stage, render, score_stage
from proctor.dialogue.tree import DialogueTree
from proctor.types import GenerationParams, Message, Prompt

DialogueStatus = Literal["complete", "call_failed", "stopped"]


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


@dataclass(frozen=True)
class DialogueResult:
    tree: str
    model: str
    status: DialogueStatus
    reason: str
    turns: tuple[TurnResult, ...]
    path: tuple[str, ...]
    consistency: float
    contradictions: tuple[str, ...]
    stage_mean: float | None
    fact_graph: tuple[dict[str, Any], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _fact_row(f: Any) -> dict[str, Any]:
    return {
        "entity": f.entity,
        "attribute": f.attribute,
        "value": f.value,
        "turn": f.turn,
        "stage": f.stage,
        "quote": f.quote,
    }


async def run_dialogue(
    tree: DialogueTree, caller: ModelCaller, params: GenerationParams
) -> DialogueResult:
    graph = FactGraph(tolerance=tree.consistency_tolerance)
    history: list[Message] = [Message("system", tree.system)] if tree.system else []
    turns: list[TurnResult] = []
    stage_id = tree.stages[0].id
    status: DialogueStatus = "complete"
    reason = ""
    while stage_id != END:
        if len(turns) >= len(tree.stages):
            status, reason = "stopped", "more turns than stages: the branch rules loop"
            break
        stage = tree.stage(stage_id)
        text, why_not = render(stage, graph)
        if text is None:
            status, reason = "stopped", why_not
            break
        history.append(Message("user", text))
        result = await caller.call(Prompt(tuple(history), "dialogue", tree.lang), params)
        if isinstance(result, CallFailure):
            status = "call_failed"
            reason = f"stage {stage.id!r}: {result.error_type}: {result.error}"
            break
        reply = result.completion.text
        history.append(Message("assistant", reply))
        turn = len(turns) + 1
        facts = extract_facts(reply, tree.facts, turn, stage.id)
        made = graph.add(facts)
        graded = score_stage(stage, facts, made)
        nxt, why = next_stage(tree, stage, graph)
        turns.append(
            TurnResult(
                turn=turn,
                stage=stage.id,
                asked=text,
                reply=reply,
                facts=tuple(_fact_row(f) for f in facts),
                contradictions=tuple(c.describe() for c in made),
                score=graded.score,
                met=graded.met,
                missed=graded.missed,
                next=nxt,
                why_next=why,
                tokens=result.completion.usage.total_tokens,
                finish_reason=result.completion.finish_reason,
            )
        )
        stage_id = nxt
    scored = [t.score for t in turns if t.score is not None]
    return DialogueResult(
        tree=tree.id,
        model=caller.provider.name,
        status=status,
        reason=reason,
        turns=tuple(turns),
        path=tuple(t.stage for t in turns),
        consistency=graph.consistency,
        contradictions=tuple(c.describe() for c in graph.contradictions),
        stage_mean=sum(scored) / len(scored) if scored else None,
        fact_graph=tuple(_fact_row(f) for f in graph.facts),
    )
