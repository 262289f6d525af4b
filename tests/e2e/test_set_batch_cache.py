"""A set with `--batch` and the response cache, through the CLI: each task's run asks its items
in the provider's batches; asking the same set again (a new set: the first is complete) reuses
every answer from the cache and sends nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from support.stub.batches import BatchFaults, BatchStubApp
from support.stub.config import StubConfig
from support.stub.server import run_stub

pytestmark = pytest.mark.slow

N = 6


def _proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.pop("OPENAI_API_KEY", None)
    env.update({"PROCTOR_API_KEY": "sk-test", "COLUMNS": "250", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args], env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_a_set_in_batches_then_from_the_cache(tmp_path: Path) -> None:
    results = tmp_path / "results"
    app = BatchStubApp(StubConfig(seed=2), BatchFaults(end_after_s=0.2))
    with run_stub(app=app) as stub:
        cmd = ["run", "arithmetic", "gsm8k", "--limit", str(N), "-m",
               f"openai-compat/stub@{stub.base_url}", "--batch", "--batch-poll", "0.2",
               "-r", str(results)]  # fmt: skip
        first = _proctor(*cmd)
        assert first.returncode == 0, first.stdout + first.stderr
        assert app.batch_stats().requests == 2 * N
        again = _proctor(*cmd)
        assert again.returncode == 0, again.stdout + again.stderr
        assert app.batch_stats().requests == 2 * N, "the second set asked again"
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        sets = db.execute("SELECT id, status FROM eval_sets ORDER BY created_at").fetchall()
        assert [s for _, s in sets] == ["complete", "complete"]
        first_runs = {r for (r,) in db.execute(
            "SELECT run_id FROM eval_set_runs WHERE set_id = ?", (sets[0][0],))}  # fmt: skip
        rows = db.execute("SELECT run_id, batch_id, cached_from FROM records").fetchall()
    batched = [r for r in rows if r[0] in first_runs]
    reused = [r for r in rows if r[0] not in first_runs]
    assert len(batched) == len(reused) == 2 * N
    assert all(b for _, b, _ in batched)
    assert {c for *_, c in reused} <= first_runs and all(c for *_, c in reused)
