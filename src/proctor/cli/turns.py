"""What `proctor dialogue` and `proctor workflow` say when Ctrl-C stops them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console


def interrupted(kind: str, started: Sequence[str], results_dir: Path) -> None:
    """One line on stderr: what was kept and the command that goes on."""
    err = Console(stderr=True)
    if not started:
        err.print(f"interrupted before the {kind} run began: nothing was stored", markup=False)
        return
    run_id = started[-1]
    err.print(
        f"interrupted: the answered turns of {kind} run {run_id} are stored in {results_dir}; "
        f"the same command (or `proctor {kind} FILE --resume {run_id}`) goes on from there",
        markup=False,
    )
