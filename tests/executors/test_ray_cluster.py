"""`proctor run --executor ray` on a two-node cluster whose second node holds only Ray: the code
ships with the job, every answer is stored once and equals a local run's, a forwarded key reaches
the server and no log or file; and when the second node's raylet is killed mid-run, the run
exits incomplete (3) and `--resume` finishes it, no stored answer asked again.

Heavy on a small machine (two Ray nodes, a runtime_env built on the second): one cluster for the
module, two runs of 2 models × 200 items, each step printed with its time."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray is not installed (pip install 'ray[default]')")

from proctor.prompts.arithmetic import build_prompt
from proctor.runs.state import EXIT_INCOMPLETE
from proctor.store import RunStore
from proctor.tasks.registry import get_task, load_for_run
from support.ray_cluster import NODE_RESOURCE, Cluster, start
from support.stub import StubConfig, StubHandle, credential_key, prompt_key, run_stub

pytestmark = pytest.mark.slow

N = 200
BIN = Path(sys.executable).parent
SECRET = "sk-forwarded-SECRET-4d1f9a"
KEY_VAR = "PROCTOR_TEST_STUB_KEY"
SAMPLES = load_for_run(get_task("arithmetic"), n=N).samples
PROMPT = {s.id: prompt_key(build_prompt(s, "B", "en").messages[-1].content) for s in SAMPLES}
AnswerKey = tuple[str, str, int]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ray-logs")


@pytest.fixture(scope="module")
def cluster(logs: Path) -> Iterator[Cluster]:
    started = time.monotonic()
    made = start(BIN, logs)
    took = time.monotonic() - started
    print(f"\n[ray] two nodes up in {took:.1f} s (node venv {made.node_venv})")
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture(scope="module")
def stub() -> Iterator[StubHandle]:
    # 40 ms a reply: slow enough that a raylet killed mid-run has shards in flight
    with run_stub(StubConfig(seed=5, correct_rate=0.7, latency_s=0.04, api_key=SECRET)) as s:
        yield s


def models(stub: StubHandle) -> list[str]:
    return [f"openai-compat/a@{stub.base_url}", f"openai-compat/b@{stub.base_url}"]


def proctor(cluster: Cluster, cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(cluster.env, COLUMNS="200", NO_COLOR="1", TERM="dumb", PYTHONUNBUFFERED="1")
    env[KEY_VAR] = SECRET  # on the driver only: the workers get it by --ray-forward-env
    return subprocess.Popen(
        [sys.executable, "-m", "proctor", *args], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def finish(proc: subprocess.Popen[str], timeout: float = 420) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        raise AssertionError(f"proctor did not finish in {timeout:g} s:\n{out[-4000:]}") from None
    return proc.returncode, out


def run_args(stub: StubHandle, results: Path, *extra: str) -> list[str]:
    per_model = [x for m in models(stub) for x in ("-m", m)]
    keys = [x for n in ("a", "b") for x in ("--api-key-env", f"{n}={KEY_VAR}")]
    return [
        "run", "arithmetic", "--n", str(N), *per_model, *keys, "--max-tokens", "64",
        "--concurrency", "4", "-r", str(results), *extra,
    ]  # fmt: skip


def ray_args(cluster: Cluster, shard_size: int) -> list[str]:
    return [
        "--executor", "ray", "--ray-address", cluster.address, "--shard-size", str(shard_size),
        "--ray-resources", f"{NODE_RESOURCE}=1", "--ray-forward-env", KEY_VAR,
    ]  # fmt: skip


def answers(results: Path) -> dict[AnswerKey, tuple[object, ...]]:
    """Every stored answer by (model, sample, epoch); each must be stored once."""
    with RunStore.open(results) as store:
        ((run,),) = [store.list_runs()]
        records = store.records(run.run_id)
    got = {(r.model, r.sample_id, r.epoch): (r.status, r.text, r.finish_reason) for r in records}
    assert len(got) == len(records), "an answer is stored twice"
    return got


def stored_count(results: Path) -> int:
    db = results / "proctor.db"
    if not db.exists():
        return 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM records").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


@pytest.fixture(scope="module")
def local_answers(stub: StubHandle, tmp_path_factory: pytest.TempPathFactory) -> dict[AnswerKey, tuple[object, ...]]:  # noqa: E501
    cwd = tmp_path_factory.mktemp("local")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env[KEY_VAR] = SECRET
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *run_args(stub, cwd / "r")],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    got = answers(cwd / "r")
    assert len(got) == 2 * N
    return got


def test_a_node_with_only_ray_answers_like_a_local_run(
    cluster: Cluster, stub: StubHandle, local_answers: dict[AnswerKey, tuple[object, ...]],
    tmp_path: Path,
) -> None:  # fmt: skip
    bare = subprocess.run(
        [str(cluster.node_venv / "bin" / "python"), "-c", "import proctor"], capture_output=True
    )
    assert bare.returncode != 0, "the second node's virtualenv must not hold proctor"
    stub.reset()
    started = time.monotonic()
    code, out = finish(proctor(cluster, tmp_path, *run_args(stub, tmp_path / "r"),
                               *ray_args(cluster, 50)))  # fmt: skip
    wall = time.monotonic() - started
    assert code == 0, out[-4000:]
    assert answers(tmp_path / "r") == local_answers
    assert stub.stats().credentials == {credential_key(SECRET): 2 * N}  # forwarded, used
    shipped = [line for line in out.splitlines() if "Pushing file package" in line]
    print(f"[ray] 2 x {N} on the Ray-only node: {wall:.1f} s wall; {shipped}")
    assert shipped, "the runtime_env did not ship proctor"
    assert_secret_nowhere(cluster, tmp_path, out)


def assert_secret_nowhere(cluster: Cluster, results: Path, output: str) -> None:
    """The forwarded key is in no file Ray or proctor wrote (logs, session files, the store,
    the report), nor in what proctor printed."""
    assert SECRET not in output
    needle = SECRET.encode()
    seen = []
    for root in (*cluster.temp_dirs, results):
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                try:
                    if needle in path.read_bytes():
                        seen.append(str(path))
                except OSError:
                    continue
    assert not seen, f"the key is written in {seen}"


def test_a_node_that_cannot_import_proctor_is_named(
    cluster: Cluster, stub: StubHandle, tmp_path: Path
) -> None:
    # `--ray-runtime-env none` to a node that has only Ray: every shard fails before asking
    code, out = finish(proctor(cluster, tmp_path, *run_args(stub, tmp_path / "r"),
                               *ray_args(cluster, 100), "--ray-runtime-env", "none"))  # fmt: skip
    assert code == EXIT_INCOMPLETE, out[-4000:]
    lines = [line for line in out.splitlines() if line.startswith("  shard ")]
    assert len(lines) == 4, out[-4000:]  # 2 models x 2 shards, each named with its node
    for line in lines:
        assert re.match(r"  shard \d on [\d.]+ \(node [0-9a-f]{8}\): ImportError: ", line), line
        assert "cannot import proctor" in line and "left missing" in line, line
    assert stored_count(tmp_path / "r") == 0
    assert "--resume" in out


def test_a_killed_raylet_leaves_the_rest_for_resume(
    cluster: Cluster, stub: StubHandle, local_answers: dict[AnswerKey, tuple[object, ...]],
    tmp_path: Path,
) -> None:  # fmt: skip
    results = tmp_path / "r"
    proc = proctor(cluster, tmp_path, *run_args(stub, results), *ray_args(cluster, 25))
    deadline = time.monotonic() + 300
    while stored_count(results) < 60:  # the second node is answering
        assert proc.poll() is None, proc.communicate()[0][-4000:]
        assert time.monotonic() < deadline, "no answer came back from the second node"
        time.sleep(0.2)
    os.kill(cluster.raylet_of_node(), signal.SIGKILL)
    code, out = finish(proc)
    kept = answers(results)
    print(f"[ray] raylet killed: {len(kept)} of {2 * N} stored, exit {code}")
    assert code == EXIT_INCOMPLETE, out[-4000:]
    assert "left missing" in out and "--resume" in out
    assert 60 <= len(kept) < 2 * N
    assert all(local_answers[k] == v for k, v in kept.items())

    with RunStore.open(results) as store:
        ((run,),) = [store.list_runs()]
    before = dict(stub.stats().by_prompt)
    # the second node is gone: finish on the head, whose environment has proctor already
    resume = ["run", "--resume", run.run_id, "-r", str(results), "--api-key-env",
              f"a={KEY_VAR}", "--api-key-env", f"b={KEY_VAR}", "--executor", "ray",
              "--ray-address", cluster.address, "--ray-runtime-env", "none",
              "--ray-forward-env", KEY_VAR]  # fmt: skip
    code, out = finish(proctor(cluster, tmp_path, *resume))
    assert code == 0, out[-4000:]
    assert answers(results) == local_answers  # nothing lost, nothing twice, the same answers
    after = stub.stats().by_prompt
    for s in SAMPLES:
        missing = sum((m, s.id, 0) not in kept for m in models(stub))
        # asked again once per model that had no stored answer, never for a stored one
        assert after.get(PROMPT[s.id], 0) - before.get(PROMPT[s.id], 0) == missing, s.id
    assert_secret_nowhere(cluster, results, out)
