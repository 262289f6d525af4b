"""Dialogue turns and workflow steps as the store keeps them (table `turns`, migration 3).

A turn is one call made in order: a model call (a dialogue's question and reply, a workflow's
model step) or a tool call (a workflow's tool step). Like records, a stored "ok" turn is never
replaced (the first answer wins); a "call_failed" turn (or a "cancelled" one: stopped in flight
at a workflow's wall-time deadline) is replaced by the next try."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from proctor.store import codec
from proctor.store.codec import count_to_column, storable
from proctor.store.tables import Transactions, now, reading_run, require_run, upsert
from proctor.types import FinishReason, Usage

TurnKind = Literal["model", "tool"]
TurnStatus = Literal["ok", "call_failed", "cancelled"]
TURN_KINDS: tuple[TurnKind, ...] = get_args(TurnKind)
TURN_STATUSES: tuple[TurnStatus, ...] = get_args(TurnStatus)


@dataclass(frozen=True)
class Turn:
    run_id: str
    model: str
    position: int
    """1-based: the order in which the calls were made."""
    step: str
    """The dialogue stage or the workflow step."""
    kind: TurnKind
    status: TurnStatus
    asked: str
    """The user message of a model call; the JSON arguments of a tool call."""
    text: str
    """The raw reply, or the tool's answer ("" when the call failed)."""
    bindings: Mapping[str, Any] = field(default_factory=dict)
    """Values of earlier turns that were filled into `asked` (so a re-grade computes a stage's
    expected answer from the question as it was asked)."""
    finish_reason: FinishReason = "stop"
    usage: Usage = field(default_factory=Usage)
    usage_reported: bool = True
    """False when the server sent no token usage: `usage` is then proctor's estimate."""
    latency_s: float = 0.0
    attempts: int = 1
    reported_model: str = ""
    error: str = ""


COLUMNS = (
    "run_id", "model", "position", "step", "kind", "status", "asked", "bindings", "text",
    "finish_reason", "prompt_tokens", "completion_tokens", "usage_reported", "latency_s",
    "attempts", "reported_model", "error", "created_at",
)  # fmt: skip
UPSERT = upsert("turns", COLUMNS, ("run_id", "model", "position"), "turns.status <> 'ok'")


def to_row(t: Turn, now: str) -> tuple[object, ...]:
    return (
        t.run_id,
        t.model,
        t.position,
        t.step,
        t.kind,
        t.status,
        storable(t.asked),
        json.dumps(dict(t.bindings), ensure_ascii=False, sort_keys=True),
        storable(t.text),
        t.finish_reason,
        count_to_column(t.usage.prompt_tokens),
        count_to_column(t.usage.completion_tokens),
        int(t.usage_reported),
        t.latency_s,
        t.attempts,
        t.reported_model,
        t.error,
        now,
    )


def add(store: Transactions, turn: Turn) -> None:
    """Store one turn, committed before this returns; a stored "ok" turn at the same
    (run, model, position) is kept, any other is replaced."""
    codec.literal(turn.kind, TURN_KINDS, "turn kind")
    codec.literal(turn.status, TURN_STATUSES, "turn status")
    codec.literal(turn.finish_reason, codec.FINISH_REASONS, "finish reason")
    with store.transaction(f"add a turn to run {turn.run_id}", write=True) as db:
        require_run(db, store.db_path, turn.run_id)
        db.execute(UPSERT, to_row(turn, now()))


def read(store: Transactions, run_id: str, model: str) -> list[Turn]:
    """The stored turns of `model` in run `run_id`, in the order they were asked."""
    with reading_run(store, run_id, "read turns") as db:
        rows = db.execute(
            "SELECT * FROM turns WHERE run_id = ? AND model = ? ORDER BY position",
            (run_id, model),
        ).fetchall()
    return [
        Turn(
            run_id=str(r["run_id"]),
            model=str(r["model"]),
            position=int(r["position"]),
            step=str(r["step"]),
            kind=codec.literal(r["kind"], TURN_KINDS, "turn kind"),
            status=codec.literal(r["status"], TURN_STATUSES, "turn status"),
            asked=str(r["asked"]),
            text=str(r["text"]),
            bindings=json.loads(r["bindings"]),
            finish_reason=codec.literal(r["finish_reason"], codec.FINISH_REASONS, "finish reason"),
            usage=Usage(
                codec.count_from_column(int(r["prompt_tokens"])),
                codec.count_from_column(int(r["completion_tokens"])),
            ),
            usage_reported=bool(r["usage_reported"]),
            latency_s=float(r["latency_s"]),
            attempts=int(r["attempts"]),
            reported_model=str(r["reported_model"]),
            error=str(r["error"]),
        )
        for r in rows
    ]
