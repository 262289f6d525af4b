"""Read a stored run for the viewer: its answers with their stored grades, and what the pages
need beside them. Nothing is graded here and nothing is written to the store: the grades are
those `proctor run` or `proctor score` stored (a page, or a page of another origin loading it
with `<img>`, never runs a grader nor a model's code); when the task's rules have changed since,
the page says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from proctor.report.html import RunListing
from proctor.runs.grade import grader_version
from proctor.runs.report import run_statistics
from proctor.stats.metrics import RunMetrics
from proctor.stats.model_parts import held
from proctor.stats.run_statistics import RunStatistics
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import TASKS
from proctor.types import GradedItem, RunInfo


@dataclass(frozen=True)
class LoadedRun:
    stats: RunStatistics
    graded_by: str
    """"stored grades (arithmetic/1)", with a word when the current rules differ, or "not
    graded"."""
    key: tuple[object, ...] = field(default=())
    """What identifies this state of the run (answers and grading) for caching."""

    @property
    def info(self) -> RunInfo:
        return self.stats.info

    @property
    def items(self) -> Sequence[GradedItem]:
        return held(self.stats.items)

    @property
    def metrics(self) -> RunMetrics:
        return self.stats.metrics


def listing(store: RunStore) -> list[RunListing]:
    return [
        RunListing(r.run_id, r.task, r.created_at, r.status, r.models, r.n_samples, r.n_records)
        for r in store.list_runs()
    ]


def state_key(store: RunStore, run_id: str) -> tuple[object, ...]:
    """Changes whenever an answer is added, the run is graded again, or a person gives a
    verdict."""
    counts = store.count_records(run_id)
    return (
        run_id,
        tuple(sorted(counts.items())),
        store.grader_version(run_id),
        store.run_status(run_id),
        len(store.human_verdicts(run_id)),
    )


def load_run(store: RunStore, run_id: str) -> LoadedRun:
    key = state_key(store, run_id)
    info = store.run_info(run_id)
    task: Task | None = TASKS.get(info.task)
    stats = run_statistics(store, run_id, task)
    version = stats.grader_version  # a dialogue's or workflow's: that of its stored grade
    graded_by = f"stored grades ({version})" if version else "not graded"
    if task is not None and version and version != grader_version(task):
        graded_by += f"; the current rules are {grader_version(task)}: proctor score re-grades"
    return LoadedRun(stats=stats, graded_by=graded_by, key=key)
