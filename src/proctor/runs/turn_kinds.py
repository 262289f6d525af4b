"""Which stored tasks are turn runs (dialogue, workflow), answered without loading them.

Every report, listing, export and gate asks "is this run a turn run?"; a run of samples (the
common case) must not pay for importing the dialogue and workflow machinery (jsonschema,
markdown-it, the tool box) to hear "no". The kinds' rows (`TurnKind`) live in
`proctor.runs.turns.TURN_KINDS`, loaded on the first turn run; `tests/runs/test_turn_kinds.py`
checks that the names here are exactly that table's keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proctor.runs.turns import TurnKind

DIALOGUE = "dialogue"
WORKFLOW = "workflow"
TURN_KIND_NAMES = frozenset({DIALOGUE, WORKFLOW})


def turn_kind(task: str) -> TurnKind | None:
    """The kind of turn run a stored run's task names, or None for a run of samples."""
    if task not in TURN_KIND_NAMES:
        return None
    from proctor.runs.turns import TURN_KINDS

    return TURN_KINDS[task]
