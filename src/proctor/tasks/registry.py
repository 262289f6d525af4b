"""The built-in tasks by name, and the one way a run gets its samples."""

from __future__ import annotations

from pathlib import Path

from proctor.datasets.jsonl import content_hash
from proctor.datasets.loaders import load_samples
from proctor.errors import ConfigError
from proctor.tasks import arithmetic
from proctor.tasks.base import Dataset, Task, first_n_balanced

TASKS: dict[str, Task] = {t.name: t for t in (arithmetic.TASK,)}


def get_task(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        known = ", ".join(sorted(TASKS))
        raise ConfigError(f"unknown task {name!r}: known tasks are {known}") from None


def load_for_run(
    task: Task,
    *,
    dataset: Path | None = None,
    seed: int | None = None,
    n: int | None = None,
    limit: int | None = None,
) -> Dataset:
    """The task's own test set, or the user's file graded the same way; `limit` keeps a
    category-balanced prefix. The content hash is of exactly the samples that will be asked."""
    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    if dataset is not None:
        samples = tuple(load_samples(dataset))
        source, version = str(dataset), "file"
    else:
        base = task.load(seed, n)
        samples, source, version = base.samples, base.source, base.generator_version
    picked = first_n_balanced(samples, limit)
    return Dataset(picked, content_hash(picked), version, source)
