"""The built-in tasks by name, and the one way a run gets its samples."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from proctor.datasets.hub import hub_ref, is_hub_name, load_hub
from proctor.datasets.jsonl import content_hash
from proctor.datasets.loaders import load_samples
from proctor.errors import ConfigError
from proctor.plugins import TASK_GROUP, PluginTable
from proctor.tasks.base import Dataset, Task, checked_task, first_n_balanced
from proctor.tasks.files import load_task_file

_ELSEWHERE = {
    "aime2024": ("aime", "TASK_2024"),
    "aime2025": ("aime", "TASK_2025"),
    "structured-perturbed": ("structured", "TASK_PERTURBED"),
}
"""The tasks that are not `TASK` of the module of their own name."""

BUILT_IN: dict[str, tuple[str, str]] = {
    name: _ELSEWHERE.get(name, (name, "TASK"))
    for name in (
        "arithmetic", "gsm8k", "math500", "aime", "aime2024", "aime2025", "humaneval",
        "mbpp", "gpqa", "suite", "structured", "structured-perturbed",
    )
}
"""Each task's name, in the order they are listed → (its module under `proctor.tasks`, the
attribute holding it)."""


class _Tasks(Mapping[str, Task]):
    """The built-in tasks, each module imported the first time its task is asked for: a run
    of one task does not import the other eleven (and their datasets, sandboxes, schemas)."""

    def __init__(self, table: Mapping[str, tuple[str, str]]) -> None:
        self._table = dict(table)
        self._loaded: dict[str, Task] = {}

    def __getitem__(self, name: str) -> Task:
        found = self._loaded.get(name)
        if found is None:
            module, attribute = self._table[name]
            found = getattr(importlib.import_module(f"proctor.tasks.{module}"), attribute)
            assert isinstance(found, Task) and found.name == name, (name, module, attribute)
            self._loaded[name] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


TASKS: Mapping[str, Task] = _Tasks(BUILT_IN)


def _check_task(loaded: object) -> Task:
    """An entry point's (or a file's) task: a Task, or a function of no arguments making one."""
    made = loaded() if callable(loaded) and not isinstance(loaded, Task) else loaded
    if not isinstance(made, Task):
        raise TypeError(f"expected a proctor Task (or a function returning one), got {type(made)}")
    return checked_task(made)


TASK_PLUGINS: PluginTable[Task] = PluginTable(TASK_GROUP, "task", _check_task)
"""Tasks of installed packages (entry point group "proctor.tasks") and of this process
(`register_task`), by the name a run stores."""


def register_task(task: Task) -> None:
    """Make `task` findable by its name in this process (a task made in Python, for resume and
    re-grading; the last one registered under a name wins); a built-in's name cannot be taken."""
    if task.name in TASKS:
        if TASKS[task.name] is task:
            return
        raise ConfigError(f"task name {task.name!r} is taken by a built-in task")
    if is_file_reference(task.name):
        raise ConfigError(f"task name {task.name!r}: PATH.py:NAME names a task in a file")
    TASK_PLUGINS.register(task.name, lambda: task)


def get_task(name: str) -> Task:
    """A task by the name a command gives or a run stores: a built-in task, PATH.py:NAME (a
    task in the user's file), a task of this process, or an installed package's."""
    if name in TASKS:
        return TASKS[name]
    if is_file_reference(name):
        return load_task_file(name)
    found = TASK_PLUGINS.get(name)
    if found is None:
        known = ", ".join([*sorted(TASKS), *TASK_PLUGINS.names()])
        raise ConfigError(
            f"unknown task {name!r}: known tasks are {known} "
            "(or PATH.py:NAME for a task in your own file; a task made in Python is known by "
            "name only to the process that made it)"
        )
    return found if found.name == name else replace(found, name=name)


def is_file_reference(name: str) -> bool:
    """Whether a task name is PATH.py:NAME."""
    path, colon, attr = name.rpartition(":")
    return bool(colon and attr and path.endswith(".py"))


def resolve_variant(task: Task, variant: str | None) -> str:
    """The task's own spelling of prompt variant `variant` (its default when None); a
    ConfigError naming the task's variants when it has no such prompt."""
    wanted = (variant or task.default_variant).strip()
    for v in task.variants:
        if v.lower() == wanted.lower():
            return v
    raise ConfigError(
        f"unknown prompt variant {wanted!r} for task {task.name}: use {' or '.join(task.variants)}"
    )


def default_max_tokens(task: Task, variant: str) -> int:
    """max_tokens when none is asked for: the task's for the variant, else 32 for an answer-only
    prompt (A) and 256 for one that reasons."""
    return task.max_tokens.get(variant) or (32 if variant.upper() == "A" else 256)


def _hub_dataset(task: Task, dataset: Path) -> Dataset:
    """`--dataset hf://ORG/NAME[@REVISION][:SPLIT]`: the rows as samples, the source naming the
    revision read (`datasets.hub`)."""
    ref = hub_ref(dataset)
    if task.load_file is not None:  # its rows are not id/input/target (tests, choices …)
        raise ConfigError(f"task {task.name} reads its own dataset files, not {ref.spec()}")
    samples, source = load_hub(ref)
    picked = tuple(samples)
    return Dataset(picked, content_hash(picked), "hf", source)


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
    loaded: Dataset | None = None
    if dataset is not None and is_hub_name(dataset):
        loaded = _hub_dataset(task, dataset)
    elif dataset is not None and task.load_file is not None:
        loaded = task.load_file(dataset, seed)
    elif dataset is not None:
        samples = tuple(load_samples(dataset))
        source, version = str(dataset), "file"
    else:
        loaded = task.load(seed, n)
    if loaded is not None:
        samples, source, version = loaded.samples, loaded.source, loaded.generator_version
    picked = first_n_balanced(samples, limit)
    if loaded is not None and len(picked) == len(samples):
        # the whole paper, in its order: every loader's hash is `content_hash` of exactly these
        # samples (hashing 100,000 samples again cost ~0.5 s of a run's start)
        return Dataset(picked, loaded.content_hash, version, source)
    return Dataset.of(picked, version, source)
