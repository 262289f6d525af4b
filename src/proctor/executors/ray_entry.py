"""The first code a Ray worker runs for a shard: it says on which node it runs, then imports
proctor and asks. Shipped by value (the driver registers this module with cloudpickle), and its
argument is pickled bytes, so a worker that cannot import proctor still reports its node and the
import error instead of failing before any of our code runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def run_shard(payload: bytes) -> Iterator[tuple[Any, ...]]:
    """Yields ("start", node id, node IP, worker pid), then what `ray_worker.ask_shard`
    yields."""
    import os

    import ray

    context = ray.get_runtime_context()
    yield ("start", context.get_node_id(), ray.util.get_node_ip_address(), os.getpid())  # type: ignore[no-untyped-call]
    try:
        from proctor.executors.ray_worker import ask_shard
    except ImportError as e:
        raise ImportError(
            f"this worker cannot import proctor ({e}): ship it with the default runtime_env, "
            "or install proctor and its dependencies on the node"
        ) from e
    yield from ask_shard(payload)
