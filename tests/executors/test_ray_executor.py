"""The Ray executor against a local Ray cluster and the loopback stub: the same results as the
local executor, and a run started by one executor and resumed by the other asks nothing twice."""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'ray[default]')")

from proctor.calling.retry import RetryPolicy  # noqa: E402
from proctor.executors import AskJob, LocalExecutor, ModelCalls  # noqa: E402
from proctor.executors.base import Executor  # noqa: E402
from proctor.executors.ray_executor import RayExecutor, shards  # noqa: E402
from proctor.prompts.arithmetic import build_prompt  # noqa: E402
from proctor.runs.ask import RunPlan, execute  # noqa: E402
from proctor.runs.grade import grade_run  # noqa: E402
from proctor.runs.plan import Calling  # noqa: E402
from proctor.store import RunStore  # noqa: E402
from proctor.tasks.registry import get_task, load_for_run  # noqa: E402
from proctor.types import GenerationParams, Record, Sample  # noqa: E402
from support.stub.app import prompt_key  # noqa: E402
from support.stub.config import StubConfig  # noqa: E402
from support.stub.server import StubHandle, run_stub  # noqa: E402

N = 200
TASK = get_task("arithmetic")
SAMPLES = load_for_run(TASK, n=N).samples


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(var, None)  # the workers inherit this environment; loopback only
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def stub() -> Iterator[StubHandle]:
    with run_stub(StubConfig(seed=5, correct_rate=0.7)) as handle:
        yield handle


@pytest.fixture(scope="module")
def slow_stub() -> Iterator[StubHandle]:
    """The same replies, 200 ms each: a shard of 50 at concurrency 8 takes at least 1.25 s, so
    a worker cannot race through its shard far ahead of what the driver has stored (Ray's
    streams have no backpressure, and the driver grades as it stores), and the worker a test
    kills early still has answers it has not sent."""
    with run_stub(StubConfig(seed=5, correct_rate=0.7, latency_s=0.2)) as handle:
        yield handle


def plan(stub: StubHandle, results: Path) -> RunPlan:
    return RunPlan(
        task=TASK, samples=SAMPLES, dataset_hash="ray-test", generator_version="t",
        models=(f"openai-compat/a@{stub.base_url}", f"openai-compat/b@{stub.base_url}"),
        variant="B", lang="en", params=GenerationParams(max_tokens=64, timeout_s=30),
        results_dir=results, calling=Calling(concurrency=8),
    )  # fmt: skip


def stored(results: Path) -> dict[tuple[str, str, int], tuple[object, ...]]:
    with RunStore.open(results) as store:
        ((run_id, *_),) = [(r.run_id,) for r in store.list_runs()]
        _, items = grade_run(store, run_id, TASK)
    return {
        (i.record.model, i.record.sample_id, i.record.epoch): (
            i.record.status,
            i.record.text,
            i.record.finish_reason,
            i.record.attempts,
            i.record.reported_model,
            i.score.outcome,
            i.score.extracted,
        )
        for i in items
    }


class Watched:
    """An executor that calls `after_commit(records committed so far)` after each commit: a
    test's hook into a run under way (a crash, a killed worker)."""

    def __init__(self, inner: Executor, after_commit: Callable[[int], None]) -> None:
        self.inner, self.after_commit, self.seen = inner, after_commit, 0
        self.asks_here = inner.asks_here

    async def run(self, job: AskJob) -> dict[str, ModelCalls]:
        async def counted(batch: Sequence[tuple[Record, Sample]]) -> None:
            await job.commit(batch)
            self.seen += len(batch)
            self.after_commit(self.seen)

        return await self.inner.run(replace(job, commit=counted))


def stop_after(inner: Executor, limit: int) -> Watched:
    """Fails the run once `limit` records are committed (a crash mid-run)."""

    def check(seen: int) -> None:
        if seen >= limit:
            raise RuntimeError("stopped on purpose")

    return Watched(inner, check)


def asked(stub: StubHandle) -> dict[str, int]:
    return dict(stub.stats().by_prompt)


KEY = {s.id: prompt_key(build_prompt(s, "B", "en").messages[-1].content) for s in SAMPLES}


def test_shards_cover_every_item_once_interleaved() -> None:
    items = [(s, 0) for s in SAMPLES[:5]]
    units = shards({"a": items, "b": items[:2]}, 2)
    assert [(u.model, len(u.items)) for u in units] == [
        ("a", 2), ("b", 2), ("a", 2), ("a", 1),
    ]  # fmt: skip
    assert [i for u in units if u.model == "a" for i in u.items] == items
    assert {u.seed for u in units if u.model == "b"} == {1}


async def test_ray_matches_the_local_executor(
    cluster: None, stub: StubHandle, tmp_path: Path
) -> None:
    local = await execute(plan(stub, tmp_path / "local"))
    remote = await execute(
        plan(stub, tmp_path / "ray"), executor=RayExecutor(shard_size=50, cpus_per_unit=0.5)
    )
    assert local.asked == remote.asked == 2 * N
    expected, got = stored(tmp_path / "local"), stored(tmp_path / "ray")
    assert len(expected) == 2 * N
    assert got == expected
    assert {m.model: m.stats.calls for m in remote.models} == {
        m.model: m.stats.calls for m in local.models
    }
    with RunStore.open(tmp_path / "ray") as store:
        assert [r.status for r in store.list_runs()] == ["complete"]


@pytest.mark.parametrize("first", ["local", "ray"])
async def test_resume_across_executors(
    cluster: None, stub: StubHandle, tmp_path: Path, first: str
) -> None:
    clean = tmp_path / "clean"
    await execute(plan(stub, clean))
    expected = stored(clean)

    results = tmp_path / "resumed"
    one: Executor = LocalExecutor() if first == "local" else RayExecutor(shard_size=40)
    other: Executor = RayExecutor(shard_size=40) if first == "local" else LocalExecutor()
    with pytest.raises(BaseException, match=r"stopped on purpose|unhandled errors"):
        await execute(plan(stub, results), executor=stop_after(one, 120))
    with RunStore.open(results) as store:
        ((run,),) = [store.list_runs()]
        assert run.status == "interrupted"
        done = {(r.model, r.sample_id) for r in store.records(run.run_id)}
    assert 120 <= len(done) < 2 * N

    before = asked(stub)
    outcome = await execute(plan(stub, results), executor=other)
    assert outcome.resumed and outcome.run_id == run.run_id
    assert outcome.asked == 2 * N - len(done)
    after = asked(stub)
    models = plan(stub, results).models
    for s in SAMPLES:
        missing = sum((m, s.id) not in done for m in models)
        # asked again exactly once per model that had no stored answer, never for a stored one
        assert after.get(KEY[s.id], 0) - before.get(KEY[s.id], 0) == missing, s.id
    assert stored(results) == expected


def test_cli_rejects_an_unknown_executor() -> None:
    import typer

    from proctor.cli.run_support import make_executor as _executor

    with pytest.raises(typer.BadParameter):
        _executor("spark", None, 10)
    assert _executor("local", None, 10) is None
    made: Any = _executor("ray", "auto", 7)
    assert isinstance(made, RayExecutor) and made.shard_size == 7 and made.address == "auto"
    assert made.ship and made.job_runtime_env() is not None


def test_cli_ray_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from proctor.cli.run_support import make_executor as _executor
    from proctor.errors import ConfigError

    with pytest.raises(typer.BadParameter, match="need --executor ray"):
        _executor("local", None, 10, "none")
    with pytest.raises(typer.BadParameter, match="need --executor ray"):
        _executor("local", None, 10, None, ["OPENAI_API_KEY"])
    off: Any = _executor("ray", None, 10, "None")
    assert not off.ship and off.job_runtime_env() is None
    env = tmp_path / "env.yaml"
    env.write_text("pip:\n  - orjson==3.10.0\n")
    mine: Any = _executor("ray", None, 10, str(env), None, ["net_a=1"])
    assert "orjson==3.10.0" in mine.job_runtime_env()["pip"]["packages"]
    assert mine.resources == {"net_a": 1.0}
    monkeypatch.setenv("FWD_SECRET", "sk-x")
    fwd: Any = _executor("ray", None, 10, None, ["FWD_SECRET"])
    assert fwd.forward_env == {"FWD_SECRET": "sk-x"}
    assert "sk-x" not in str(fwd.job_runtime_env())  # never in the runtime_env Ray logs
    monkeypatch.delenv("FWD_SECRET")
    with pytest.raises(ConfigError, match="FWD_SECRET is not set"):
        _executor("ray", None, 10, None, ["FWD_SECRET"])
    with pytest.raises(ConfigError, match="cannot read the runtime_env"):
        _executor("ray", None, 10, str(tmp_path / "missing.json"))


def parent_of(pid: int) -> int:
    return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])


def ours(pid: int) -> bool:
    """Whether `pid` descends from this test process (the local cluster its ray.init started)."""
    mine, parents = os.getpid(), []
    while pid > 1 and len(parents) < 8:
        pid = parent_of(pid)
        parents.append(pid)
    return mine in parents


async def test_a_lost_worker_is_asked_again_for_what_it_had_not_sent(
    cluster: None, slow_stub: StubHandle, tmp_path: Path
) -> None:
    stub = slow_stub
    await execute(replace(plan(stub, tmp_path / "local"), calling=Calling(concurrency=64)))
    expected = stored(tmp_path / "local")
    before = asked(stub)
    killed: list[int] = []
    ray_executor = RayExecutor(shard_size=50, cpus_per_unit=0.5)

    def kill_one(seen: int) -> None:  # once 20 answers are stored, the worker of one shard
        if seen >= 20 and not killed:
            # a worker the executor knows runs a started shard (one picked from /proc may have
            # just been given a new shard and not yet said where it runs)
            for _node, pid in ray_executor.running_workers()[:1]:
                assert ours(pid), f"worker {pid} is not of this test's Ray cluster"
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    outcome = await execute(plan(stub, tmp_path / "ray"), executor=Watched(ray_executor, kill_one))
    assert killed, "no shard worker was found to kill"
    assert stored(tmp_path / "ray") == expected  # every answer once, the same answers
    failures = [(m, f) for m in outcome.models for f in m.shard_failures]
    assert len(failures) == 1, f"killed worker {killed}: shard failures {failures}"
    ((model, failure),) = failures
    assert failure.rerun and failure.unanswered > 0 and failure.node, failure
    assert "Worker" in failure.reason or "died" in failure.reason, failure.reason
    assert outcome.asked == 2 * N and model.left_missing == 0
    with RunStore.open(tmp_path / "ray") as store:
        assert [r.status for r in store.list_runs()] == ["complete"]
    after = asked(stub)
    again = sum(after.get(KEY[s.id], 0) - before.get(KEY[s.id], 0) for s in SAMPLES) - 2 * N
    assert 0 <= again <= failure.unanswered  # only answers lost with the worker, asked again


async def test_a_server_a_worker_cannot_reach_is_reported_with_its_node(
    cluster: None, stub: StubHandle, tmp_path: Path
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = f"openai-compat/dead@http://127.0.0.1:{s.getsockname()[1]}/v1"
    run = replace(
        plan(stub, tmp_path / "r"), samples=SAMPLES[:40], models=(dead,),
        calling=Calling(concurrency=8, retry=RetryPolicy(max_attempts=1), breaker_threshold=3),
    )  # fmt: skip
    outcome = await execute(run, executor=RayExecutor(shard_size=20, cpus_per_unit=0.5))
    ((report,),) = [outcome.models]
    assert len(report.shard_failures) == 2 and report.stopped
    for f in report.shard_failures:
        assert f.node and f.failed_calls == 20 and not f.unanswered, f
    with RunStore.open(tmp_path / "r") as store:
        ((info,),) = [store.list_runs()]
        records = store.records(info.run_id)
    assert len(records) == 40 and {r.status for r in records} == {"call_failed"}


TASK_FILE = """
import proctor
from proctor import Sample


@proctor.scorer(rule="The reply is the target city.")
def city(reply, sample):
    return reply.text.strip() == sample.target


cities = proctor.define_task(
    "cities", samples=[Sample(id=c, input=c, target="Paris", answer_type="text")
                       for c in ("fr", "fr2", "fr3")],
    prompt="Capital of {input}?", scorer=city, version="1",
)
"""


async def test_a_task_in_the_users_file_runs_on_ray(cluster: None, tmp_path: Path) -> None:
    # The file exists only here: its task travels to the workers by value.
    (tmp_path / "my_tasks.py").write_text(TASK_FILE)
    task = get_task(f"{tmp_path}/my_tasks.py:cities")
    data = load_for_run(task)
    file_plan = RunPlan(
        task=task, samples=data.samples, dataset_hash=data.content_hash,
        generator_version=data.generator_version, models=("fake/const:Paris",),
        variant="default", lang="en", params=GenerationParams(max_tokens=16, timeout_s=30),
        results_dir=tmp_path / "res",
    )  # fmt: skip
    outcome = await execute(file_plan, executor=RayExecutor(shard_size=2, cpus_per_unit=0.5))
    assert outcome.asked == 3
    with RunStore.open(tmp_path / "res") as store:
        _, items = grade_run(store, outcome.run_id, task)
    assert [i.score.outcome for i in items] == ["correct"] * 3


def test_ray_that_does_not_start_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ray's own failure to start (a node timed out under load, no cluster at the address) is
    a ConfigError naming where, never a traceback out of `ray.init`."""
    from proctor.errors import ConfigError

    def timed_out(**_: object) -> None:
        raise Exception("The current node timed out during startup.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", timed_out)
    executor = RayExecutor(address="127.0.0.1:1", ship=False)
    with pytest.raises(ConfigError, match=r"Ray did not start \(127.0.0.1:1\): Exception: The"):
        executor._connect()
