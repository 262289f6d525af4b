"""The runs of a results folder as `proctor list runs` shows them: newest first, each model
with its headline score read from the stored grades (a run never graded says so); a dialogue or
workflow run, its stored grade's headline score and outcome, and its turns as its answers."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proctor.report.runs_table import ModelLine, RunLine
from proctor.report.text import NONE
from proctor.runs.stored import open_existing
from proctor.runs.turn_kinds import turn_kind
from proctor.store.browse import tallies


def _headline(grade: Mapping[str, Any]) -> tuple[str, str]:
    """(the first score of a stored turn grade, e.g. "stage mean 0.67", its outcome)."""
    metrics = grade.get("metrics")
    first = metrics[0] if isinstance(metrics, list) and metrics else None
    head = f"{first[0]} {first[1]}" if isinstance(first, list) and len(first) == 2 else NONE
    return head, str(grade.get("outcome", ""))


def run_lines(results_dir: Path) -> list[RunLine]:
    """One line per stored run, newest first. Turn runs (`TURN_KINDS`) are graded as a whole
    (`proctor.stats.turn_scores`)."""
    with open_existing(results_dir) as store:
        rows = store.list_runs()
        counted = {(t.run_id, t.model): t for t in tallies(store)}
        graded_turns = {
            r.run_id: store.turn_grades(r.run_id) for r in rows if turn_kind(r.task) is not None
        }
    lines = []
    for r in rows:
        models = []
        for model in r.models:
            t = counted.get((r.run_id, model))
            models.append(
                ModelLine(model, 0, 0, 0, False)
                if t is None
                else ModelLine(model, t.n_answers, t.correct, t.n_scored, t.n_graded > 0)
            )
            if r.run_id in graded_turns:
                grade = graded_turns[r.run_id].get(model)
                models[-1] = ModelLine(model, r.n_records, 0, 0, grade is not None,
                                       turns=_headline(grade[1]) if grade else None)  # fmt: skip
        lines.append(RunLine(r.run_id, r.task, r.created_at, r.status, r.n_samples, tuple(models)))
    return lines
