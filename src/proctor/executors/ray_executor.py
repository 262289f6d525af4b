"""`proctor run --executor ray`: a run's (model × shard) work units as Ray tasks.

Each task builds its model's provider on the worker, asks its shard (with the run's concurrency,
retries and rate limits, per task) and streams the records back in batches as they are answered
(`ray_worker`); the driver commits each batch into its run store as it arrives. Workers never
open the SQLite file (a cluster has no shared disk), so resume, re-grading and reports work as
after a local run, and a run may be started with one executor and resumed with the other.

The code goes with the job: unless told otherwise the driver connects with a runtime_env that
carries proctor and its workers' dependencies, pinned (`ray_env`), so a node needs only Ray of
the same version. A Ray already initialised in this process is used as it is, runtime_env and
all (the caller's choice).

Where the cluster is: `address` (`--ray-address`), else `RAY_ADDRESS`, else a Ray already
initialised in this process, else a new local one. Workers must reach the model servers
themselves; keys are read from the workers' environment, or forwarded by name
(`--ray-forward-env VAR`) inside the shard's pickled argument, never in the runtime_env (Ray logs
that). `--concurrency` applies per task: shards of one model that run at once multiply the load
on its server.

Failures say where: a shard whose worker cannot import, cannot reach its server or dies (its node
lost) is reported with its node. What it had sent back is stored; the rest is asked again once
elsewhere when the failure was Ray's (a node or worker lost) and a live node can take it, else
left missing for `--resume`. Nothing is stored twice and nothing is dropped unseen."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ray
from ray import cloudpickle

from proctor.errors import ConfigError
from proctor.executors import ray_entry
from proctor.executors.base import (
    AskJob,
    AskSettings,
    Commit,
    Item,
    ModelCalls,
    ShardFailure,
    WorkUnit,
    merge_calls,
)
from proctor.executors.ray_env import merged

DEFAULT_SHARD_SIZE = 250
MAX_ATTEMPTS = 2
"""Tries of one shard: the first, and one re-run elsewhere after Ray lost its worker or node."""
WATCH_S = 2.0
"""How often shards not yet started are checked against the live nodes."""
STRIKES = 2
"""Checks in a row with no live node that could take a shard before it is left missing."""


def shards(todo: Mapping[str, Sequence[Item]], size: int) -> list[WorkUnit]:
    """Every model's items cut into shards of at most `size`, interleaved across models so the
    first tasks to run are spread over all of them."""
    if size < 1:
        raise ValueError(f"shard size must be at least 1, got {size}")
    per_model = [
        [WorkUnit(m, tuple(items[i : i + size]), seed) for i in range(0, len(items), size)]
        for seed, (m, items) in enumerate(todo.items())
    ]
    longest = max((len(u) for u in per_model), default=0)
    return [u[k] for k in range(longest) for u in per_model if k < len(u)]


@dataclass
class _Shard:
    unit: WorkUnit
    number: int
    left: dict[tuple[str, int], Item]
    attempt: int = 0
    node: str = ""
    pid: int | None = None
    """The worker process running the shard now, once it said so."""
    started: bool = False
    finished: bool = False
    abandoned: str | None = None
    generator: Any = None
    calls: list[ModelCalls] = field(default_factory=list)
    failures: list[ShardFailure] = field(default_factory=list)


class RayExecutor:
    asks_here = False

    def __init__(
        self,
        address: str | None = None,
        *,
        shard_size: int = DEFAULT_SHARD_SIZE,
        cpus_per_unit: float = 1.0,
        init_kwargs: Mapping[str, Any] | None = None,
        ship: bool = True,
        runtime_env: Mapping[str, Any] | None = None,
        forward_env: Mapping[str, str] | None = None,
        resources: Mapping[str, float] | None = None,
    ) -> None:
        """`ship`: connect with our runtime_env (proctor and its pinned dependencies), the user's
        `runtime_env` merged in; without, the user's alone (or none). `forward_env`: variables
        (name → value read here) the workers see; `resources`: custom Ray resources every shard
        asks for (to keep shards on nodes that offer them)."""
        if shard_size < 1:
            raise ValueError(f"shard size must be at least 1, got {shard_size}")
        self.address = address
        self.shard_size = shard_size
        self.cpus_per_unit = cpus_per_unit
        self.ship = ship
        self.runtime_env = dict(runtime_env) if runtime_env else None
        self.forward_env = dict(forward_env or {})
        self.resources = dict(resources or {})
        self.connect_s: float | None = None
        """Seconds `ray.init` took (with the runtime_env's upload), once connected by us."""
        self._init_kwargs = dict(init_kwargs or {})
        self._jobs: list[_Shard] = []

    def job_runtime_env(self) -> dict[str, Any] | None:
        """The runtime_env this executor connects with."""
        return merged(self.runtime_env) if self.ship else self.runtime_env

    def _connect(self) -> None:
        if ray.is_initialized():
            return
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        env = self.job_runtime_env()
        if env:
            kwargs["runtime_env"] = env
        kwargs.update(self._init_kwargs)
        started = time.monotonic()
        # address None: RAY_ADDRESS if set, else a new local cluster (ray.init's own rule)
        try:
            ray.init(address=self.address, **kwargs)
        except Exception as e:  # Ray's own: a node that timed out, a cluster not there
            where = self.address or "a new local cluster"
            raise ConfigError(
                f"Ray did not start ({where}): {type(e).__name__}: {e}; what is stored is "
                "kept, and the same command (or --resume) asks the rest"
            ) from None
        self.connect_s = time.monotonic() - started

    def running_workers(self) -> list[tuple[str, int]]:
        """(node, pid) of every worker that is running a shard of the current run and has said
        where, the one with most left to ask first: for a status line, or a test that kills one
        on purpose."""
        running = [
            j for j in self._jobs if j.started and j.pid is not None and j.left and not j.finished
        ]
        running.sort(key=lambda j: -len(j.left))  # the furthest from done first
        return [(j.node, j.pid) for j in running if j.pid is not None]

    def demand(self) -> dict[str, float]:
        return {"CPU": self.cpus_per_unit, **self.resources}

    async def run(self, job: AskJob) -> dict[str, ModelCalls]:
        # job.providers is not used: each worker builds its own from the model string
        settings, todo, commit = job.settings, job.todo, job.commit
        units = shards(todo, self.shard_size)
        if not units:
            return {}
        self._connect()
        if not await _live_node_offers(self.demand()):
            raise ConfigError(
                f"no live node of the Ray cluster offers {self.demand()} for a shard: start "
                "nodes with those resources (ray start --resources '{\"NAME\": N}') or change "
                "--ray-resources"
            )
        # by value: it runs, and says where, before the worker imports any proctor
        cloudpickle.register_pickle_by_value(ray_entry)  # type: ignore[no-untyped-call]
        options: dict[str, Any] = {"num_cpus": self.cpus_per_unit, "max_retries": 0}
        if self.resources:
            options["resources"] = self.resources
        remote = ray.remote(**options)(ray_entry.run_shard)
        counts: dict[str, int] = {}
        jobs: list[_Shard] = []
        self._jobs = jobs
        for unit in units:
            counts[unit.model] = counts.get(unit.model, 0) + 1
            left = {(s.id, e): (s, e) for s, e in unit.items}
            jobs.append(_Shard(unit, counts[unit.model], left))
        tasks = [asyncio.ensure_future(self._ask(job, remote, settings, commit)) for job in jobs]
        watch = asyncio.ensure_future(self._watch(jobs, tasks))
        try:
            await asyncio.gather(*tasks)
        finally:
            watch.cancel()
            await _stop(jobs, [*tasks, watch])
        out: dict[str, ModelCalls] = {}
        for m in todo:
            mine = [j for j in jobs if j.unit.model == m]
            if mine:
                out[m] = merge_calls([c for j in mine for c in j.calls])
                out[m].shard_failures.extend(f for j in mine for f in j.failures)
        return out

    async def _ask(self, job: _Shard, remote: Any, settings: AskSettings, commit: Commit) -> None:
        """One shard to the end: its records committed as they come; on a failure, what it had
        not answered is asked again (once, when Ray lost it and a live node can take it) or left
        missing."""
        try:
            await self._attempts(job, remote, settings, commit)
        finally:
            job.finished = True

    async def _attempts(
        self, job: _Shard, remote: Any, settings: AskSettings, commit: Commit
    ) -> None:
        while True:
            unit = WorkUnit(job.unit.model, tuple(job.left.values()), job.unit.seed)
            payload = cloudpickle.dumps((settings, unit, self.forward_env))  # type: ignore[no-untyped-call]
            job.started, job.node, job.pid = False, "", None
            job.generator = remote.remote(payload)
            error = await self._consume(job, commit)
            if error is None or not job.left:
                return
            job.attempt += 1
            rerun = (
                job.abandoned is None
                and not isinstance(error, ray.exceptions.RayTaskError)
                and job.attempt < MAX_ATTEMPTS
                and await _live_node_offers(self.demand())
            )
            reason = job.abandoned or _reason(error)
            # A worker can die after Ray gave it the shard but before it said where it runs.
            node = job.node or "unknown node (the worker died before it said where it runs)"
            job.failures.append(
                ShardFailure(job.unit.model, job.number, len(job.left), node, reason, rerun)
            )
            if not rerun:
                return

    async def _consume(self, job: _Shard, commit: Commit) -> ray.exceptions.RayError | None:
        stream = job.generator.__aiter__()
        while True:
            try:
                message = await (await stream.__anext__())
            except StopAsyncIteration:
                return None
            except ray.exceptions.RayError as e:
                return e
            kind = message[0]
            if kind == "start":
                job.started, job.node = True, f"{message[2]} (node {str(message[1])[:8]})"
                job.pid = message[3] if len(message) > 3 else None
            elif kind == "records":
                records = message[1]
                await commit([(r, job.left[(r.sample_id, r.epoch)][0]) for r in records])
                for r in records:
                    del job.left[(r.sample_id, r.epoch)]
            elif kind == "calls":
                calls: ModelCalls = message[1]
                job.calls.append(calls)
                by_type = calls.stats.failures_by_type
                failed = sum(by_type.values())
                if failed:  # stored as call_failed, but where it happened is news too
                    kinds = ", ".join(f"{k} {v}" for k, v in sorted(by_type.items()))
                    reason = calls.stopped or f"failed calls: {kinds}"
                    job.failures.append(
                        ShardFailure(
                            job.unit.model, job.number, 0, job.node, reason, False, failed
                        )
                    )

    async def _watch(self, jobs: Sequence[_Shard], tasks: Sequence[asyncio.Future[None]]) -> None:
        """Leave missing the shards no live node can take (their node was lost): Ray would keep
        them waiting for resources forever."""
        strikes = 0
        while not all(t.done() for t in tasks):
            await asyncio.sleep(WATCH_S)
            waiting = [
                j for j in jobs if not (j.started or j.finished) and j.left and not j.abandoned
            ]
            if not waiting:
                strikes = 0
                continue
            strikes = 0 if await _live_node_offers(self.demand()) else strikes + 1
            if strikes < STRIKES:
                continue
            for job in waiting:
                job.abandoned = f"no live node offers {self.demand()} (a node was lost)"
                with contextlib.suppress(Exception):
                    ray.cancel(job.generator, force=True)


async def _live_node_offers(demand: Mapping[str, float]) -> bool:
    nodes = await asyncio.to_thread(ray.nodes)
    return any(
        n.get("Alive") and all(n.get("Resources", {}).get(k, 0.0) >= v for k, v in demand.items())
        for n in nodes
    )


async def _ended(generator: Any) -> None:
    """Returns once the task behind a (cancelled) streaming generator has ended, however."""
    with contextlib.suppress(Exception):
        await generator.completed()


def _reason(error: BaseException) -> str:
    """One line: the worker's own exception for a task error, else Ray's first sentence."""
    cause = getattr(error, "cause", None)
    if isinstance(error, ray.exceptions.RayTaskError) and isinstance(cause, BaseException):
        text = f"{type(cause).__name__}: {cause}"
    else:
        text = f"{type(error).__name__}: {error}"
    line = " ".join(text.split())
    return line if len(line) <= 300 else line[:299] + "…"


async def _stop(jobs: Sequence[_Shard], tasks: Sequence[asyncio.Future[Any]]) -> None:
    """After a deadline or an error: kill the shards still running and wait for their consumers,
    so that once the run has stopped no worker is still asking (what they had not sent is not
    stored, and a resume asks it again)."""
    cancelled = []
    for job in jobs:
        if job.generator is not None and job.left:
            with contextlib.suppress(Exception):
                ray.cancel(job.generator, force=True)
                cancelled.append(job.generator)
    running = [t for t in tasks if not t.done()]
    for t in running:
        t.cancel()
    if running:
        await asyncio.wait(running, timeout=60)
    # ray.cancel only asks: a force-cancelled worker may send a few more requests before it is
    # killed. Wait until Ray says each task has ended, so nothing asks after the run stopped.
    ends = [asyncio.ensure_future(_ended(g)) for g in cancelled]
    if ends:
        await asyncio.wait(ends, timeout=60)
    for t in tasks:
        if t.done() and not t.cancelled():
            t.exception()  # retrieved: a cancelled shard's error is expected, not news
