"""The `--executor ray` options of `proctor run`: where the cluster is, what ships with the job,
which variables the workers see, and which nodes may take a shard."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor.errors import ProctorError

if TYPE_CHECKING:
    from proctor.executors.base import Executor

RayRuntimeEnv = Annotated[
    str | None,
    typer.Option(
        "--ray-runtime-env",
        metavar="FILE|none",
        help=(
            "With --executor ray: a runtime_env (JSON or YAML) merged with the one proctor ships "
            "(itself and its workers' pinned dependencies); 'none' ships nothing (nodes that have "
            "proctor installed)."
        ),
    ),
]
RayForwardEnv = Annotated[
    list[str] | None,
    typer.Option(
        "--ray-forward-env",
        metavar="VAR",
        help=(
            "With --executor ray: give the workers this variable of this machine (e.g. a key); "
            "by default they read their own environment. Repeat per variable."
        ),
    ),
]
RayResources = Annotated[
    list[str] | None,
    typer.Option(
        "--ray-resources",
        metavar="NAME=N",
        help=(
            "With --executor ray: a custom resource every shard asks for, so shards run only on "
            "nodes started with it (ray start --resources). Repeat per resource."
        ),
    ),
]


def make_ray_executor(
    address: str | None,
    shard_size: int,
    runtime_env: str | None = None,
    forward_env: list[str] | None = None,
    resources: list[str] | None = None,
) -> Executor:
    try:
        from proctor.executors.ray_env import forwarded, load_runtime_env, parse_resources
        from proctor.executors.ray_executor import RayExecutor
    except ImportError as e:
        raise ProctorError(
            f"--executor ray needs Ray ({e}): pip install 'ray[default]' (see README, Ray)"
        ) from e
    ship = runtime_env is None or runtime_env.strip().lower() != "none"
    user = load_runtime_env(Path(runtime_env)) if runtime_env is not None and ship else None
    return RayExecutor(
        address or None,
        shard_size=shard_size,
        ship=ship,
        runtime_env=user,
        forward_env=forwarded(forward_env or []),
        resources=parse_resources(resources or []),
    )
