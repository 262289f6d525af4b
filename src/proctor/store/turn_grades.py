"""The grade of a dialogue or workflow run (table `turn_grades`, migration 8): one row per run
and model, replaced when `proctor score` grades the stored turns again."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from proctor.store.tables import Transactions, now, reading_run, require_run


def save(
    store: Transactions, run_id: str, model: str, grader_version: str, grade: Mapping[str, Any]
) -> None:
    """Store the grade of a dialogue or workflow run's turns (JSON), replacing the last."""
    with store.transaction(f"save the grade of run {run_id}", write=True) as db:
        require_run(db, store.db_path, run_id)
        db.execute(
            "INSERT INTO turn_grades (run_id, model, grader_version, grade, graded_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, model) DO UPDATE SET"
            " grader_version = excluded.grader_version, grade = excluded.grade,"
            " graded_at = excluded.graded_at",
            (run_id, model, grader_version,
             json.dumps(dict(grade), ensure_ascii=False, sort_keys=True), now()),
        )  # fmt: skip


def read(store: Transactions, run_id: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """model → (grader version, grade) of a dialogue or workflow run; {} if never graded."""
    with reading_run(store, run_id, "read the grade") as db:
        rows = db.execute(
            "SELECT model, grader_version, grade FROM turn_grades WHERE run_id = ? ORDER BY model",
            (run_id,),
        ).fetchall()
    return {str(r["model"]): (str(r["grader_version"]), json.loads(r["grade"])) for r in rows}
