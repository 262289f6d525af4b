"""proctor: evaluate LLMs on work whose answers can be checked.

The Python API (`proctor.api`), loaded on first use so that `import proctor` and `proctor
--help` stay fast:

    evaluate(task, models, ...) -> Run      ask, store, grade, report (proctor.api)
    await evaluate_async(task, models, ...) the same, inside an event loop (a notebook)
    load_run(RUN) -> Run                    a stored run's records, grades and statistics
    define_task(name, samples=, prompt=, scorer=, version=) -> Task
    scorer(rule=...)                        a function (record, sample) -> bool | Score
    Task, Scorer, Run, Sample, Record, Score, ModelSpec, Provider

`proctor.testing.assert_run(run, "accuracy>=0.9", baseline=...)` gates a run in a test suite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proctor._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from proctor.api import Run, evaluate, evaluate_async, load_run
    from proctor.providers.base import Provider
    from proctor.providers.registry import ModelSpec
    from proctor.score.custom import Scorer, scorer
    from proctor.tasks.base import Task
    from proctor.tasks.custom import define_task
    from proctor.types import Record, Sample, Score

_PUBLIC: dict[str, str] = {
    "evaluate": "proctor.api",
    "evaluate_async": "proctor.api",
    "load_run": "proctor.api",
    "Run": "proctor.api",
    "define_task": "proctor.tasks.custom",
    "Task": "proctor.tasks.base",
    "scorer": "proctor.score.custom",
    "Scorer": "proctor.score.custom",
    "Sample": "proctor.types",
    "Record": "proctor.types",
    "Score": "proctor.types",
    "ModelSpec": "proctor.providers.registry",
    "Provider": "proctor.providers.base",
}

__all__ = [
    "ModelSpec",
    "Provider",
    "Record",
    "Run",
    "Sample",
    "Score",
    "Scorer",
    "Task",
    "define_task",
    "evaluate",
    "evaluate_async",
    "load_run",
    "scorer",
]


__getattr__ = lazy_exports(__name__, _PUBLIC)
