"""Read a stored run for the viewer: its answers with their stored grades, and what the pages
need beside them. Nothing is graded here and nothing is written to the store: the grades are
those `proctor run` or `proctor score` stored (a page, or a page of another origin loading it
with `<img>`, never runs a grader nor a model's code); when the task's rules have changed since,
the page says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from proctor.errors import ProctorError
from proctor.report.html import RunListing, RunView
from proctor.runs.grade import grader_version, stored_items
from proctor.stats.metrics import RunMetrics, summarize
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import TASKS
from proctor.types import GradedItem, Prompt, RunInfo, Sample


@dataclass(frozen=True)
class LoadedRun:
    info: RunInfo
    items: list[GradedItem]
    metrics: RunMetrics
    rules: Mapping[str, str]
    prompts: Mapping[str, str] | None
    graded_by: str
    """"stored grades (arithmetic/1)", "current rules (arithmetic/2)" or "not graded"."""
    key: tuple[object, ...] = field(default=())
    """What identifies this state of the run (answers and grading) for caching."""

    def view(self) -> RunView:
        return RunView(self.info, self.metrics, self.items)


def listing(store: RunStore) -> list[RunListing]:
    return [
        RunListing(r.run_id, r.task, r.created_at, r.status, r.models, r.n_samples, r.n_records)
        for r in store.list_runs()
    ]


def state_key(store: RunStore, run_id: str) -> tuple[object, ...]:
    """Changes whenever an answer is added or the run is graded again."""
    counts = store.count_records(run_id)
    return (
        run_id,
        tuple(sorted(counts.items())),
        store.grader_version(run_id),
        store.run_status(run_id),
    )


def prompt_text(prompt: Prompt) -> str:
    if len(prompt.messages) == 1:
        return prompt.messages[0].content
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in prompt.messages)


def load_run(store: RunStore, run_id: str) -> LoadedRun:
    key = state_key(store, run_id)
    info = store.run_info(run_id)
    samples = {s.id: s for s in store.samples(run_id)}
    task: Task | None = TASKS.get(info.task)
    items = stored_items(store, run_id)
    version = store.grader_version(run_id)
    graded_by = f"stored grades ({version})" if version else "not graded"
    if task is not None and version and version != grader_version(task):
        graded_by += f"; the current rules are {grader_version(task)}: proctor score re-grades"
    return LoadedRun(
        info=info,
        items=items,
        metrics=summarize(items, models=info.models),
        rules=dict(task.rules) if task is not None else {},
        prompts=_prompts(task, info, samples.values()) if task is not None else None,
        graded_by=graded_by,
        key=key,
    )


def _prompts(task: Task, info: RunInfo, samples: Iterable[Sample]) -> Mapping[str, str] | None:
    """Each sample's prompt as the run sent it; None if the task cannot rebuild them."""
    try:
        return {
            s.id: prompt_text(task.build_prompt(s, info.prompt_variant, info.lang)) for s in samples
        }
    except ProctorError:
        return None
