"""`proctor list runs`: the results folder's runs, newest first, each model with its headline
score read from the stored grades (a run never graded says so)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from proctor.report.runs_table import ModelLine, RunLine, runs_table
from proctor.store import RunStore
from proctor.store.browse import tallies


def print_runs(console: Console, results_dir: Path) -> None:
    with RunStore.open(results_dir) as store:
        rows = store.list_runs()
        counted = {(t.run_id, t.model): t for t in tallies(store)}
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
        lines.append(RunLine(r.run_id, r.task, r.created_at, r.status, r.n_samples, tuple(models)))
    console.print(runs_table(f"Runs in {results_dir}", lines))
