"""Executors: who asks the models for a run's missing answers.

The runner owns the store (resume, status, commits); an executor only turns work units —
(model × shard of samples) — into records and hands them back through `Commit`. `LocalExecutor`
asks from this process's event loop; `RayExecutor` (`proctor.executors.ray_executor`, needs the
`ray` extra) fans the units out as Ray tasks and returns their records to the driver."""

from proctor.executors.base import (
    DEFAULT_MAX_FAILURES,
    AskJob,
    AskSettings,
    Commit,
    Executor,
    ModelCalls,
    ShardFailure,
    WorkUnit,
    ask_items,
    make_caller,
    merge_calls,
    request_for,
    variant_of,
)
from proctor.executors.local import LocalExecutor

__all__ = [
    "DEFAULT_MAX_FAILURES",
    "AskJob",
    "AskSettings",
    "Commit",
    "Executor",
    "LocalExecutor",
    "ModelCalls",
    "ShardFailure",
    "WorkUnit",
    "ask_items",
    "make_caller",
    "merge_calls",
    "request_for",
    "variant_of",
]
