"""Requirements checked on a run's graded items held in memory (`proctor.testing.assert_run`
on a `proctor.Run`): one row per requirement and model. `proctor gate` checks a stored run
instead (`proctor.runs.gate.gate_stored_run`); the arithmetic is `proctor.stats.gates`' for
both, and a baseline's rows are `proctor.runs.gate.baseline_rows` for both."""

from __future__ import annotations

from collections.abc import Sequence

from proctor.stats.gates import GateRow as GateRow
from proctor.stats.gates import evaluate, parse_requirement
from proctor.types import GradedItem


def gate_items(
    requirements: Sequence[str], items: Sequence[GradedItem], models: Sequence[str]
) -> list[GateRow]:
    """One row per requirement and model; ConfigError naming a requirement that cannot be
    read (before any is checked)."""
    parsed = [parse_requirement(r) for r in requirements]
    return evaluate(parsed, list(items), models)
