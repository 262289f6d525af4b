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
from proctor.store.codec import storable
from proctor.store.tables import (
    Transactions,
    now,
    reading_run,
    require_run,
    row_reader,
    row_writer,
    upsert,
)
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


_ROW = row_writer(
    COLUMNS[:-1],
    asked=lambda t: storable(t.asked),
    bindings=lambda t: json.dumps(dict(t.bindings), ensure_ascii=False, sort_keys=True),
    text=lambda t: storable(t.text),
    usage_reported=lambda t: int(t.usage_reported),
    **codec.USAGE_COLUMNS,
)
"""A turn's row, but its `created_at` (the last column)."""
_READ = row_reader(
    Turn,
    kind=lambda r: codec.literal(r["kind"], TURN_KINDS, "turn kind"),
    status=lambda r: codec.literal(r["status"], TURN_STATUSES, "turn status"),
    bindings=lambda r: json.loads(r["bindings"]),
    finish_reason=lambda r: codec.literal(
        r["finish_reason"], codec.FINISH_REASONS, "finish reason"
    ),
    usage=codec.usage_of_row,
)


def add(store: Transactions, turn: Turn) -> None:
    """Store one turn, committed before this returns; a stored "ok" turn at the same
    (run, model, position) is kept, any other is replaced."""
    codec.literal(turn.kind, TURN_KINDS, "turn kind")
    codec.literal(turn.status, TURN_STATUSES, "turn status")
    codec.literal(turn.finish_reason, codec.FINISH_REASONS, "finish reason")
    with store.transaction(f"add a turn to run {turn.run_id}", write=True) as db:
        require_run(db, store.db_path, turn.run_id)
        db.execute(UPSERT, (*_ROW(turn), now()))


def read(store: Transactions, run_id: str, model: str) -> list[Turn]:
    """The stored turns of `model` in run `run_id`, in the order they were asked."""
    with reading_run(store, run_id, "read turns") as db:
        rows = db.execute(
            "SELECT * FROM turns WHERE run_id = ? AND model = ? ORDER BY position",
            (run_id, model),
        ).fetchall()
    return [_READ(r) for r in rows]
