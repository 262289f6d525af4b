"""Gates in a team's own test suite: `assert_run(run, "accuracy>=0.9", baseline=...)`.

    from proctor import evaluate
    from proctor.testing import assert_run

    def test_support_bot_still_good():
        run = evaluate("path/to/tasks.py:support", ["openai-compat/bot@http://127.0.0.1:8000/v1"])
        assert_run(run, "accuracy>=0.9", "category=refund:accuracy>=0.95", baseline="v1-run")

The requirements are `proctor gate`'s (`proctor.stats.gates`); with a baseline, the run must
also not be significantly worse than it on the items both scored (exact McNemar, or a paired
permutation test with repeats). A run whose answers are not all there, or whose calls failed,
fails: accuracy over the answers that came back says nothing of those that did not. The
AssertionError's message is the gate's table, one row per requirement and model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.api import Run, load_run
from proctor.report.text import gate_value
from proctor.runs.gate import DEFAULT_ALPHA, baseline_rows, gate_of
from proctor.runs.gate_items import gate_items

if TYPE_CHECKING:  # the rows' type, for annotations only
    from proctor.stats.gates import GateRow

__all__ = ["assert_run", "gate_rows"]


def assert_run(
    run: Run | str | Path,
    *requirements: str,
    baseline: Run | str | Path | None = None,
    alpha: float = DEFAULT_ALPHA,
    results_dir: str | Path | None = None,
) -> list[GateRow]:
    """Raise AssertionError, with the gate's table as its message, unless every requirement
    holds for every model of the run (and, with `baseline`, the run is not significantly worse
    than it); return the rows when all pass."""
    candidate = run if isinstance(run, Run) else load_run(run, results_dir=results_dir)
    rows = gate_rows(
        candidate, requirements, baseline=baseline, alpha=alpha, results_dir=results_dir
    )
    gate = gate_of(candidate.id, rows, candidate.state)
    if gate.code != 0:
        undecided = sum(r.inconclusive for r in rows)
        verdict = (
            f"gate failed for run {candidate.id}: {gate.failed - undecided} of {len(rows)} checks"
            if gate.failed > undecided or not undecided
            else f"gate inconclusive for run {candidate.id}: {undecided} of {len(rows)} checks "
            "lack the evidence to decide (never a pass)"
        )
        lines = [
            verdict,
            table(rows),
        ]
        if gate.problems:
            lines += [
                "the run is not complete, so no gate can pass it:",
                *(f"  {p}" for p in gate.problems),
            ]
        raise AssertionError("\n".join(lines))
    return rows


def gate_rows(
    run: Run,
    requirements: Sequence[str],
    *,
    baseline: Run | str | Path | None = None,
    alpha: float = DEFAULT_ALPHA,
    results_dir: str | Path | None = None,
) -> list[GateRow]:
    """One row per requirement and model, then one per model against the baseline."""
    if not requirements and baseline is None:
        raise ValueError('nothing to check: give a requirement ("accuracy>=0.9") or a baseline')
    items = list(run.items)
    rows = gate_items(requirements, items, run.models)
    if baseline is None:
        return rows
    base = (
        baseline
        if isinstance(baseline, Run)
        else load_run(
            baseline, results_dir=results_dir if results_dir is not None else run.results_dir
        )
    )
    return rows + baseline_rows(
        items, list(base.items), run.models, base.models, label=base.id, alpha=alpha
    )


def table(rows: Sequence[GateRow]) -> str:
    """The gate's rows as a plain-text table (what a failing test prints)."""
    header = ("requirement", "model", "value", "n", "result", "note")
    body = [
        (r.requirement, r.model, gate_value(r), str(r.n), r.result, r.note)
        for r in rows
    ]
    widths = [max(len(row[c]) for row in (header, *body)) for c in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *body)
    )
