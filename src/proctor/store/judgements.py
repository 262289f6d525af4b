"""Judge verdicts as asked (table `judgements`, migration 2): the raw replies, one row per
answer, judge and ordering, so that `proctor score` reads a verdict again without the judge."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from proctor.store import codec
from proctor.store.tables import Transactions, now, reading_run, row_reader, row_writer, upsert
from proctor.types import Usage

JudgementStatus = Literal["ok", "unscored", "call_failed"]
JUDGEMENT_STATUSES: tuple[JudgementStatus, ...] = get_args(JudgementStatus)


@dataclass(frozen=True)
class Judgement:
    """One judge verdict as asked: the raw replies, not their reading
    (`proctor.extract.judge_verdict` reads them, then and at every `proctor score`).

    `status` is what the reading said when it was asked: "ok", "unscored" (no valid verdict after
    every attempt; `error` says why) or "call_failed" (the judge could not be called)."""

    run_id: str
    model: str
    sample_id: str
    epoch: int
    judge: str
    ordering: str
    """"single" for a pointwise verdict; "ab" / "ba" for the two orders of a pairwise one."""
    status: JudgementStatus
    reply: str
    replies: tuple[str, ...]
    prompt: str
    """The first prompt's messages, as JSON."""
    rubric: str
    attempts: int
    error: str
    usage: Usage
    latency_s: float


_COLUMNS = (
    "run_id", "model", "sample_id", "epoch", "judge", "ordering", "status", "reply", "replies",
    "prompt", "rubric", "attempts", "error", "prompt_tokens", "completion_tokens", "latency_s",
    "created_at",
)  # fmt: skip
# Like records: a stored verdict (or unscored reading) stays; a failed call may be replaced.
_UPSERT = upsert(
    "judgements",
    _COLUMNS,
    ("run_id", "model", "sample_id", "epoch", "judge", "ordering"),
    "judgements.status = 'call_failed'",
)


_ROW = row_writer(
    _COLUMNS[:-1],
    reply=lambda j: codec.storable(j.reply),
    replies=lambda j: codec.storable(codec.dumps([codec.storable(r) for r in j.replies])),
    prompt=lambda j: codec.storable(j.prompt),
    error=lambda j: codec.storable(j.error),
    **codec.USAGE_COLUMNS,
)
"""A judgement's row, but its `created_at` (the last column)."""
_READ = row_reader(
    Judgement,
    status=lambda r: codec.literal(r["status"], JUDGEMENT_STATUSES, "judgement status"),
    replies=lambda r: tuple(str(x) for x in json.loads(r["replies"])),
    usage=codec.usage_of_row,
)


def add(store: Transactions, judgements: Sequence[Judgement]) -> None:
    """Store judge verdicts in one transaction. Keyed on (run, model, sample, epoch, judge,
    ordering); a stored "ok" or "unscored" row is kept, a "call_failed" one is replaced."""
    if not judgements:
        return
    for j in judgements:
        codec.literal(j.status, JUDGEMENT_STATUSES, "judgement status")
    created_at = now()
    rows = [(*_ROW(j), created_at) for j in judgements]
    run_ids = sorted({j.run_id for j in judgements})
    with store.transaction(f"add judgements to run {', '.join(run_ids)}", write=True) as db:
        db.executemany(_UPSERT, rows)


def read(store: Transactions, run_id: str, judge: str | None = None) -> list[Judgement]:
    """Stored judge verdicts of a run (of one judge, when named), ordered by judge, model,
    sample position, epoch and ordering."""
    where = "j.run_id = ?" + ("" if judge is None else " AND j.judge = ?")
    args: tuple[str, ...] = (run_id,) if judge is None else (run_id, judge)
    with reading_run(store, run_id, "read judgements") as db:
        rows = db.execute(
            "SELECT j.* FROM judgements j JOIN samples s"
            " ON s.run_id = j.run_id AND s.sample_id = j.sample_id"
            f" WHERE {where} ORDER BY j.judge, j.model, s.position, j.epoch, j.ordering",
            args,
        ).fetchall()
    return [_READ(r) for r in rows]
