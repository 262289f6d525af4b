"""An eval set (issue 29) through the CLI: `proctor run` of 4 tasks × 3 models, SIGKILLed twice
(once by each way of going on: the same command, then `--resume SET`), ends with one set, four
complete runs, exactly one stored answer per item and model, and no stored answer asked twice
(the stub counts every request). The models are three names on one loopback stub."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from pathlib import Path

import pytest

from support.stub import StubConfig, StubHandle, run_stub

pytestmark = pytest.mark.slow

TASKS = ("arithmetic", "gsm8k", "math500", "aime")
N = 6
MODELS = 3
ALL = len(TASKS) * MODELS * N
Spawn = Callable[[Sequence[str], Path], subprocess.Popen[bytes]]


@pytest.fixture
def stub() -> Iterator[StubHandle]:
    with run_stub(StubConfig(seed=3, latency_s=0.05)) as handle:
        yield handle


def _models(stub: StubHandle) -> list[str]:
    return [stub.model.replace("stub@", f"stub-{k}@") for k in "abc"[:MODELS]]


def _command(stub: StubHandle, results: Path) -> list[str]:
    cmd = [sys.executable, "-m", "proctor", "run", *TASKS, "--limit", str(N)]
    for m in _models(stub):
        cmd += ["-m", m]
    return [*cmd, "-r", str(results), "--concurrency", "2"]


def _query(db: Path, sql: str) -> list[tuple[object, ...]]:
    if not db.exists():
        return []
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as conn:
            return list(conn.execute(sql).fetchall())
    except sqlite3.OperationalError:
        return []


def _stored(db: Path) -> int:
    rows = _query(db, "SELECT COUNT(*) FROM records")
    return int(str(rows[0][0])) if rows else 0


def _kill_when_stored(proc: subprocess.Popen[bytes], db: Path, at_least: int, log: Path) -> None:
    deadline = time.monotonic() + 120
    while _stored(db) < at_least:
        if proc.poll() is not None:
            pytest.fail(f"set ended (rc {proc.returncode}) before the kill:\n{log.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"fewer than {at_least} records after 120 s:\n{log.read_text()}")
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait(10) == -signal.SIGKILL


def test_set_killed_twice_then_resumed(
    tmp_path: Path, stub: StubHandle, spawn_logged: Spawn, child_environ: dict[str, str]
) -> None:
    results = tmp_path / "results"
    db = results / "proctor.db"
    cmd = _command(stub, results)
    unstored_at_kills = 0
    log1, log2 = tmp_path / "first.log", tmp_path / "second.log"

    _kill_when_stored(spawn_logged(cmd, log1), db, 10, log1)
    stored1 = _stored(db)
    assert 10 <= stored1 < ALL
    unstored_at_kills += stub.stats().requests - stored1
    ((set_id,),) = _query(db, "SELECT id FROM eval_sets")

    # the same command goes on with the same set, past the first task
    _kill_when_stored(spawn_logged(cmd, log2), db, stored1 + 30, log2)
    stored2 = _stored(db)
    assert stored1 < stored2 < ALL, (stored1, stored2)
    unstored_at_kills += stub.stats().requests - stored2
    assert _query(db, "SELECT id FROM eval_sets") == [(set_id,)]

    done = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--resume", str(set_id), "-r", str(results)],
        capture_output=True, env=child_environ, timeout=300, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"resumed set {set_id}" in done.stdout
    assert "4 of 4 tasks complete" in done.stdout

    # Every item answered once per model: 4 × 3 × N records, no stored one asked again (only
    # requests in flight at a kill, never stored, may have been asked twice).
    rows = _query(db, "SELECT run_id, model, sample_id, epoch, status FROM records")
    assert len(rows) == ALL
    assert len({r[:4] for r in rows}) == ALL
    assert {r[4] for r in rows} == {"ok"}
    asked = stub.stats().requests
    assert ALL <= asked <= ALL + unstored_at_kills, (asked, unstored_at_kills)

    # One set, complete; each task a complete run of the set, with its results.json.
    assert _query(db, "SELECT status FROM eval_sets") == [("complete",)]
    members = _query(db, "SELECT task, run_id FROM eval_set_runs ORDER BY position")
    assert [t for t, _ in members] == list(TASKS)
    runs = dict(_query(db, "SELECT id, status FROM runs"))
    assert set(runs) == {r for _, r in members}
    assert set(runs.values()) == {"complete"}
    for task, run_id in members:
        doc = json.loads((results / "runs" / str(run_id) / "results.json").read_text())
        assert doc["run"]["task"] == task
        assert sorted(m["model"] for m in doc["models"]) == sorted(_models(stub))
        assert {m["n_items"] for m in doc["models"]} == {N}


def test_set_stopped_by_ctrl_c_says_how_to_go_on(
    tmp_path: Path, stub: StubHandle, spawn_logged: Spawn, child_environ: dict[str, str]
) -> None:
    results = tmp_path / "results"
    db = results / "proctor.db"
    log = tmp_path / "first.log"
    proc = spawn_logged(_command(stub, results), log)
    deadline = time.monotonic() + 120
    while _stored(db) < 8:
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(60) == 130, log.read_text()
    ((set_id,),) = _query(db, "SELECT id FROM eval_sets")
    said = " ".join(log.read_text().split())
    assert f"set {set_id} keeps every answer stored; `proctor run --resume {set_id}`" in said
    assert _query(db, "SELECT status FROM eval_sets") == [("running",)]
