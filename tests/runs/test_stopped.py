"""A run stopped early by design (`proctor.runs.stopped`), and the runs that must NOT read as
one: a sequential run cut short before its test decided, a finished one, and a run that never
was sequential are incomplete or complete as any run is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from proctor.runs.ask import execute
from proctor.runs.plan import Asking, Paper, build_plan
from proctor.runs.stopped import SEQUENTIAL_KEY, remember_design, stopped_early
from proctor.store import RunStore
from proctor.tasks.registry import get_task

N = 40


def _ask(results: Path, first: int) -> str:
    """Two models that always reply the same asked the first `first` items of N: a tie no
    test can decide."""
    plan = build_plan(get_task("arithmetic"), ["fake/const:7", "fake/const:7+calculator"],
                      Paper(n=N), Asking(), results)  # fmt: skip
    ids = frozenset(s.id for s in plan.samples[:first])
    return asyncio.run(execute(plan, only=ids)).run_id


def test_a_sequential_run_cut_short_before_it_decided_is_not_stopped_by_design(
    tmp_path: Path,
) -> None:
    run_id = _ask(tmp_path, 10)
    with RunStore.open(tmp_path) as store:
        assert stopped_early(store, run_id) == ""  # not sequential at all
        remember_design(store, run_id, margin=0.01, batch=10, seed=0, alpha=0.05)
        store.set_status(run_id, "interrupted")
        assert SEQUENTIAL_KEY in store.run_config(run_id)
        assert stopped_early(store, run_id) == ""  # a tie after 10 of 40: undecided


def test_a_finished_sequential_run_is_not_stopped_early(tmp_path: Path) -> None:
    run_id = _ask(tmp_path, N)
    with RunStore.open(tmp_path) as store:
        remember_design(store, run_id, margin=0.5, batch=10, seed=0, alpha=0.05)
        store.set_status(run_id, "interrupted")  # even if its status says so
        assert stopped_early(store, run_id) == ""  # every item asked: nothing was left out
