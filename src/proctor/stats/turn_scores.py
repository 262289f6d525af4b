"""`TurnScores`: the grade of a dialogue or workflow run (its outcome, its scores, a row per turn
and what went wrong), as the store keeps it (JSON, table `turn_grades`) and the reports show it.

The dialogue and workflow rooms grade their stored turns and store this document; every renderer
reads it back through `RunStatistics.turns`, so `proctor dialogue`, `proctor score` and the files
of the run never disagree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TurnRow:
    """One turn (a dialogue's stage, a workflow's step) as the reports show it."""

    position: int
    step: str
    score: str
    """As the report prints it: "1.00", "—" (not scored) …"""
    note: str = ""
    """What followed from it: the next stage and why, a missed fact, the tokens spent."""


@dataclass(frozen=True)
class TurnScores:
    """The graded run of one model (a dialogue or workflow run asks one)."""

    kind: str
    """"dialogue" or "workflow"."""
    model: str
    outcome: str
    """The dialogue's status or the workflow's outcome: "complete", "call_failed" …"""
    reason: str
    metrics: tuple[tuple[str, str], ...]
    """(name, value as printed): stage mean, consistency, score, tokens, tool calls …"""
    turns: tuple[TurnRow, ...]
    problems: tuple[str, ...]
    """Contradictions, failed checks, why a score is missing: one line each."""
    grader_version: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    """The whole graded result (a dialogue's fact graph, a workflow's outputs), for results.json."""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.model,
            "outcome": self.outcome,
            "reason": self.reason,
            "metrics": [list(m) for m in self.metrics],
            "turns": [[t.position, t.step, t.score, t.note] for t in self.turns],
            "problems": list(self.problems),
            "detail": dict(self.detail),
        }


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _rows(value: object) -> Sequence[Sequence[object]]:
    if not isinstance(value, list):
        return []
    return [row for row in value if isinstance(row, list)]


def turn_scores_from_json(doc: Mapping[str, Any], grader_version: str = "") -> TurnScores:
    """The stored document read back; a part that is missing or malformed reads as empty."""
    turns = tuple(
        TurnRow(int(r[0]) if isinstance(r[0], int) else 0, *(_text(v) for v in r[1:4]))
        for r in _rows(doc.get("turns"))
        if len(r) == 4
    )
    metrics = tuple((_text(r[0]), _text(r[1])) for r in _rows(doc.get("metrics")) if len(r) == 2)
    problems = doc.get("problems")
    detail = doc.get("detail")
    return TurnScores(
        kind=_text(doc.get("kind")),
        model=_text(doc.get("model")),
        outcome=_text(doc.get("outcome")),
        reason=_text(doc.get("reason")),
        metrics=metrics,
        turns=turns,
        problems=tuple(_text(p) for p in problems) if isinstance(problems, list) else (),
        grader_version=grader_version,
        detail=detail if isinstance(detail, dict) else {},
    )
