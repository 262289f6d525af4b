"""Eval sets (tables `eval_sets` and `eval_set_runs`, migration 10): several tasks asked of the
same models under one id, each task a run of its own. The set remembers its plan as written (a
JSON mapping, no keys), its fingerprint (the same command finds it unfinished) and, per task,
the run that asks it once that run exists."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from proctor.errors import StoreError
from proctor.store.guard import refuse_secrets
from proctor.store.tables import Transactions, newest_unfinished, now

SetStatus = Literal["running", "complete"]
SET_PREFIX = "set-"


@dataclass(frozen=True)
class SetMember:
    position: int
    task: str
    run_id: str
    """'' until the task's run exists."""


@dataclass(frozen=True)
class StoredSet:
    set_id: str
    name: str
    fingerprint: str
    plan: Mapping[str, Any]
    status: SetStatus
    created_at: str
    members: tuple[SetMember, ...]


def new_set_id(moment: datetime | None = None) -> str:
    """`set-20261202-013000-3fa9c2`: sorts by time, never read as a run id."""
    at = (moment or datetime.now(UTC)).astimezone(UTC)
    return f"{SET_PREFIX}{at:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def create_set(
    store: Transactions,
    name: str,
    fingerprint: str,
    plan: Mapping[str, Any],
    tasks: Sequence[str],
) -> str:
    set_id = new_set_id()
    refuse_secrets(plan, where=f"set {set_id}")
    stamp = now()
    with store.transaction(f"create set {set_id}", write=True) as db:
        db.execute(
            "INSERT INTO eval_sets (id, name, fingerprint, plan, status, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 'running', ?, ?)",
            (set_id, name or set_id, fingerprint, json.dumps(plan, sort_keys=True), stamp, stamp),
        )
        db.executemany(
            "INSERT INTO eval_set_runs (set_id, position, task) VALUES (?, ?, ?)",
            [(set_id, i, t) for i, t in enumerate(tasks)],
        )
    return set_id


def find_resumable_set(store: Transactions, fingerprint: str) -> str | None:
    """The newest set with this fingerprint that is not complete, if any."""
    return newest_unfinished(store, "eval_sets", fingerprint)


def resolve_set(store: Transactions, ref: str) -> str | None:
    """The set meant by `ref` (an id, a unique prefix of one, or a set's name: the newest with
    it); None when `ref` names no set (it may name a run)."""
    key = ref.strip()
    if not key:
        return None
    with store.transaction(f"resolve set '{ref}'", write=False) as db:
        if not _has_sets(db):
            return None
        exact = db.execute("SELECT id FROM eval_sets WHERE id = ?", (key,)).fetchone()
        if exact is not None:
            return str(exact[0])
        named = db.execute(
            "SELECT id FROM eval_sets WHERE name = ? ORDER BY created_at DESC, rowid DESC"
            " LIMIT 1",
            (key,),
        ).fetchone()
        if named is not None:
            return str(named[0])
        if not key.startswith(SET_PREFIX):
            return None
        rows = db.execute(
            "SELECT id FROM eval_sets WHERE substr(id, 1, ?) = ? ORDER BY id", (len(key), key)
        ).fetchall()
    ids = [str(r[0]) for r in rows]
    if len(ids) > 1:
        raise StoreError(f"set '{ref}' is ambiguous in {store.db_path}: {', '.join(ids[:5])}")
    return ids[0] if ids else None


def _has_sets(db: Any) -> bool:
    return (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'eval_sets'"
        ).fetchone()
        is not None
    )


def read_set(store: Transactions, set_id: str) -> StoredSet:
    with store.transaction(f"read set {set_id}", write=False) as db:
        row = db.execute(
            "SELECT id, name, fingerprint, plan, status, created_at FROM eval_sets WHERE id = ?",
            (set_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no set '{set_id}' in {store.db_path}")
        members = db.execute(
            "SELECT position, task, run_id FROM eval_set_runs WHERE set_id = ? ORDER BY position",
            (set_id,),
        ).fetchall()
    return StoredSet(
        set_id=str(row[0]),
        name=str(row[1]),
        fingerprint=str(row[2]),
        plan=json.loads(row[3]),
        status="complete" if row[4] == "complete" else "running",
        created_at=str(row[5]),
        members=tuple(SetMember(int(p), str(t), str(r)) for p, t, r in members),
    )


def set_member_run(store: Transactions, set_id: str, position: int, run_id: str) -> None:
    """Give the set's task at `position` its run (once the run exists)."""
    with store.transaction(f"note run {run_id} in set {set_id}", write=True) as db:
        db.execute(
            "UPDATE eval_set_runs SET run_id = ? WHERE set_id = ? AND position = ?",
            (run_id, set_id, position),
        )
        db.execute("UPDATE eval_sets SET updated_at = ? WHERE id = ?", (now(), set_id))


def set_set_status(store: Transactions, set_id: str, status: SetStatus) -> None:
    with store.transaction(f"mark set {set_id} {status}", write=True) as db:
        db.execute(
            "UPDATE eval_sets SET status = ?, updated_at = ? WHERE id = ?",
            (status, now(), set_id),
        )
