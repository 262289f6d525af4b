"""A proctor run written for another harness's tools (`proctor export`): what every format's
writer shares. The writers are pure: each turns a run's statistics (its stored answers and
grades, `RunStatistics`) and the prompts it sent into `ExportFile`s, paths relative to the
folder or file the user named; `proctor.runs.export` writes them, each whole or not at all."""

from __future__ import annotations

import importlib.metadata
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TextIO

from proctor.stats.metrics import NOT_SCORED
from proctor.stats.run_statistics import RunStatistics
from proctor.types import GradedItem, Message

Prompts = Mapping[str, tuple[Message, ...]]
"""Sample id → the messages the run sent for it; a sample missing here is shown by its input
(a task this proctor cannot rebuild prompts for)."""


@dataclass(frozen=True)
class ExportFile:
    """One file of an export: where it goes (relative; "" for the path the user named) and
    how its text is streamed into an open file."""

    path: PurePosixPath
    write: Callable[[TextIO], object]


def proctor_version() -> str:
    try:
        return importlib.metadata.version("proctor-eval")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def by_model(stats: RunStatistics) -> dict[str, list[GradedItem]]:
    """The run's items per model, in the run's model order, each model's in sample order."""
    out: dict[str, list[GradedItem]] = {m: [] for m in stats.info.models}
    for item in stats.items:
        out.setdefault(item.record.model, []).append(item)
    return {m: items for m, items in out.items() if items}


def is_scored(item: GradedItem) -> bool:
    """False for a failed call and an unscored answer: neither counts for or against a model."""
    return item.score.outcome not in NOT_SCORED


def messages_of(item: GradedItem, prompts: Prompts) -> tuple[Message, ...]:
    return prompts.get(item.sample.id) or (Message("user", item.sample.input),)


def chat_messages(item: GradedItem, prompts: Prompts) -> list[dict[str, str]]:
    """The messages the run sent for `item`, as plain chat objects (role and content)."""
    return [{"role": m.role, "content": m.content} for m in messages_of(item, prompts)]


def slug(text: str) -> str:
    """A name safe in a file name on every system: runs of anything but letters, digits, dot,
    dash and underscore become one "-"."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "model"


def mean_stderr(values: Sequence[float]) -> float | None:
    """The standard error of a mean as lm-eval's `mean_stderr` and Inspect's `stderr` give it:
    the sample standard deviation (n - 1) over √n; None under two values."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n)
