"""Read a stored run for the viewer: its answers, graded, and what the pages need beside them.

Grading follows `proctor report`: the task's current rules decide. When the stored grades were
made by the task's current version they are used as they are (they are what the rules give);
otherwise every answer is graded again, purely and in memory. Nothing is written to the store.
A task whose grading runs the reply's code (`Task.runs_code`: HumanEval, MBPP) is never graded
here: its stored grades are shown as they are, whatever their version, so that a page (or a
page of another origin loading it with `<img>`) never runs a model's code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from proctor.errors import ProctorError
from proctor.report.html import RunListing, RunView
from proctor.stats.metrics import RunMetrics, summarize
from proctor.store import RunStore
from proctor.tasks.base import NOT_GRADED_YET, Task
from proctor.tasks.registry import TASKS
from proctor.types import GradedItem, Prompt, RunInfo, Sample, Score

NOT_GRADED = Score(
    outcome="unscored",
    rule="not_graded",
    explanation="no grader is known for this task and the answer was never graded",
)


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
    records = store.records(run_id)
    task: Task | None = TASKS.get(info.task)
    stored = store.scores(run_id)
    version = store.grader_version(run_id)
    current = task is not None and version == f"{task.name}/{task.version}"
    items: list[GradedItem] = []
    for record in records:
        sample = samples[record.sample_id]
        found = stored.get((record.model, record.sample_id, record.epoch))
        if task is not None and task.runs_code:
            score = found if found is not None else NOT_GRADED_YET
        elif task is not None and (not current or found is None):
            score = task.grade(record, sample)
        else:
            score = found if found is not None else NOT_GRADED
        items.append(GradedItem(sample, record, score))
    if task is None or task.runs_code:
        graded_by = f"stored grades ({version})" if version else "not graded"
    elif current:
        graded_by = f"stored grades ({version})"
    else:
        graded_by = f"current rules ({task.name}/{task.version})"
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
