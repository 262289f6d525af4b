"""Batch faults through the CLI: partial results and expired batches become call_failed records
with the provider's reason, and `--retry-errors RUN --batch` puts only those in a new batch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.store import RunStore
from support.stub.batches import BatchFaults, BatchStubApp
from support.stub.config import StubConfig
from support.stub.server import run_stub

N = 60


def proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"PROCTOR_API_KEY": "sk-test", "COLUMNS": "250", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def failed(results: Path) -> dict[str, str]:
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        return {r.sample_id: r.error for r in store.records(run.run_id) if r.status != "ok"}


@pytest.mark.parametrize("kind", ["openai-compat", "anthropic"])
def test_partial_results_are_failed_calls_and_retried_in_a_new_batch(
    tmp_path: Path, kind: str
) -> None:
    app = BatchStubApp(StubConfig(seed=5), BatchFaults(end_after_s=0.2, error_rate=0.3))
    with run_stub(app=app) as stub:
        base = [
            "arithmetic",
            "--n",
            str(N),
            "--prompt",
            "A",
            "-m",
            f"{kind}/stub@{stub.base_url}",
            "--batch",
            "--batch-poll",
            "0.2",
            "-r",
            str(tmp_path),
        ]
        first = proctor("run", *base)
        lost = failed(tmp_path)
        assert 5 <= len(lost) <= 35, first.stdout
        assert all(
            e.startswith("BatchError") and "server error (stub batch)" in e for e in lost.values()
        )
        with RunStore.open(tmp_path) as store:
            run_id = store.list_runs()[0].run_id
        again = proctor(
            "run", "--retry-errors", run_id, "--batch", "--batch-poll", "0.2", "-r", str(tmp_path)
        )
        stats = app.batch_stats()
    assert stats.batches == 2 and stats.requests == N + len(lost)  # only the failed, once more
    assert len(failed(tmp_path)) < len(lost), again.stdout


def test_an_expired_batch_keeps_what_was_done(tmp_path: Path) -> None:
    app = BatchStubApp(StubConfig(seed=5), BatchFaults(end_after_s=0.2, expire=True))
    with run_stub(app=app) as stub:
        done = proctor(
            "run",
            "arithmetic",
            "--n",
            str(N),
            "--prompt",
            "A",
            "-m",
            f"openai-compat/stub@{stub.base_url}",
            "--batch",
            "--batch-poll",
            "0.2",
            "-r",
            str(tmp_path),
        )
    lost = failed(tmp_path)
    assert len(lost) == N // 2, done.stdout
    assert all("batch_expired" in e for e in lost.values())
    with RunStore.open(tmp_path) as store:
        (run,) = store.list_runs()
        ok = [r for r in store.records(run.run_id) if r.status == "ok"]
    assert len(ok) == N // 2 and all(r.text for r in ok)


def test_batch_refuses_a_model_without_a_batch_api(tmp_path: Path) -> None:
    done = proctor(
        "run", "arithmetic", "--n", "3", "-m", "fake/const:1", "--batch", "-r", str(tmp_path)
    )
    assert done.returncode == 2 and "cannot be asked in batches" in done.stderr
    with RunStore.open(tmp_path) as store:
        assert store.list_runs() == []
