"""`proctor run --retry-errors SET` after a server outage asks only the failed calls of the set's
runs (the stub counts them), and the set exits 4 then 0 by the rule of `proctor.runs.state`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from support.stub.config import StubConfig
from support.stub.server import run_stub

pytestmark = pytest.mark.slow

N = 8


def _proctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def _statuses(results: Path) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        return [(str(r), str(s)) for r, s in db.execute("SELECT run_id, status FROM records")]


def test_retry_errors_of_a_set_asks_only_the_failed(
    tmp_path: Path, child_environ: dict[str, str]
) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig(fault_rate=0.4, seed=5, faults=("500", "503"))) as flaky:
        port = flaky.port
        models = [flaky.model.replace("stub@", f"stub-{k}@") for k in "ab"]
        first = _proctor(
            child_environ, "run", "arithmetic", "gsm8k", "--limit", str(N),
            "-m", models[0], "-m", models[1], "-r", str(results),
            "--max-attempts", "1", "--max-failures", "0",
        )  # fmt: skip
    assert first.returncode == 4, first.stdout + first.stderr
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((set_id,),) = db.execute("SELECT id FROM eval_sets").fetchall()
    assert f"--retry-errors {set_id}" in first.stderr
    failed = [r for r in _statuses(results) if r[1] == "call_failed"]
    assert 0 < len(failed) < 2 * 2 * N
    assert len({run for run, _ in failed}) == 2, "the outage should hit both tasks' runs"

    with run_stub(StubConfig(), port=port) as healthy:
        second = _proctor(child_environ, "run", "--retry-errors", set_id, "-r", str(results))
        assert second.returncode == 0, second.stdout + second.stderr
        assert healthy.stats().requests == len(failed)
    after = _statuses(results)
    assert len(after) == 2 * 2 * N
    assert {s for _, s in after} == {"ok"}
