"""`proctor run --batch` through both batch APIs of our loopback batch server, 1,000 requests,
SIGKILLed while its batches are in flight and started again: every record stored once, no
request submitted twice, the cost at the batch price."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proctor.store import RunStore
from support.stub.batches import BatchFaults, BatchStubApp
from support.stub.config import StubConfig
from support.stub.server import run_stub

N = 1000
PRICES = """
[models."openai-compat/*"]
input_per_mtok = 2.5
output_per_mtok = 10.0
[models."anthropic/*"]
input_per_mtok = 3.0
output_per_mtok = 15.0
"""


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PROCTOR_PRICES"):
        e.pop(key, None)
    e.update({"PROCTOR_API_KEY": "sk-test-batch", "COLUMNS": "250", "NO_COLOR": "1"})
    return e


def submitted_batches(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM provider_batches WHERE batch_id <> ''"
            ).fetchone()
    except sqlite3.OperationalError:  # not migrated yet
        return 0
    return int(row[0])


@pytest.mark.parametrize("kind", ["openai-compat", "anthropic"])
def test_killed_batch_run_submits_nothing_twice(tmp_path: Path, kind: str) -> None:
    app = BatchStubApp(StubConfig(seed=1), BatchFaults(end_after_s=8.0))
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES, encoding="utf-8")
    results = tmp_path / "results"
    with run_stub(app=app) as stub:
        model = f"{kind}/stub@{stub.base_url}"
        cmd = [
            sys.executable,
            "-m",
            "proctor",
            "run",
            "arithmetic",
            "--n",
            str(N),
            "--prompt",
            "A",
            "-m",
            model,
            "--batch",
            "--batch-size",
            "250",
            "--batch-poll",
            "0.5",
            "-r",
            str(results),
            "--prices",
            str(prices),
        ]
        log = (tmp_path / "first.log").open("wb")
        child = subprocess.Popen(cmd, env=env(), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while submitted_batches(results / "proctor.db") < 2:
            assert child.poll() is None, (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "no batch was submitted"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        log.close()
        before = app.batch_stats()
        assert before.batches >= 2
        with RunStore.open(results) as store:
            (run,) = store.list_runs()
            # killed while batches were in flight (normally all of them: a batch ends 8 s after
            # its submit; on a very busy machine the first may have ended and been stored)
            assert run.n_records < N
        done = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        after = app.batch_stats()
    # No request was submitted twice: 1,000 requests in all, each prompt as often as it is asked.
    assert after.requests == N
    assert sum(after.by_prompt.values()) == N
    assert after.batches == N // 250
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        records = store.records(run.run_id)
        samples = store.samples(run.run_id)
    assert len(records) == N and len({(r.sample_id, r.epoch) for r in records}) == N
    assert all(r.status == "ok" and r.batch_id for r in records)
    assert len({r.batch_id for r in records}) == N // 250
    prompts: dict[str, int] = {}
    for s in samples:
        prompts[s.input] = prompts.get(s.input, 0) + 1
    assert max(after.by_prompt.values()) == max(prompts.values())
    # The cost is the batch price: half the list price of the tokens stored.
    p_in, p_out = (2.5, 10.0) if kind == "openai-compat" else (3.0, 15.0)
    prompt_tokens = sum(r.usage.prompt_tokens for r in records)
    completion_tokens = sum(r.usage.completion_tokens for r in records)
    batch_cost = (prompt_tokens * p_in + completion_tokens * p_out) / 1e6 / 2
    cost = r"completion tokens, \$([0-9.,]+) \(1,000 answers asked in batches"
    line = re.search(cost, done.stdout)
    assert line is not None, done.stdout
    assert float(line[1].replace(",", "")) == pytest.approx(batch_cost, abs=5e-5)
