"""`--batch` and the response cache together, through the CLI: a larger `--limit` puts only the
new items in a batch, and what the reused answers saved is priced at the batch price (asking
them again in this run would have been batched too, at half the list price)."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from proctor.store import RunStore
from proctor.types import Record
from support.stub.batches import BatchFaults, BatchStubApp
from support.stub.config import StubConfig
from support.stub.server import run_stub

PRICES = '[models."openai-compat/*"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n'


def proctor(*args: str, prices: Path) -> str:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.pop("OPENAI_API_KEY", None)
    env.update({"PROCTOR_API_KEY": "sk-test", "COLUMNS": "250", "NO_COLOR": "1"})
    env["PROCTOR_PRICES"] = str(prices)
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args], env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_larger_limit_batches_only_the_new_items(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES, encoding="utf-8")
    results = tmp_path / "results"
    app = BatchStubApp(StubConfig(seed=2), BatchFaults(end_after_s=0.2))
    with run_stub(app=app) as stub:
        base = ["run", "arithmetic", "--n", "50", "--prompt", "A", "-m"]
        base += [f"openai-compat/stub@{stub.base_url}", "--batch", "--batch-poll", "0.2"]
        proctor(*base, "--limit", "20", "-r", str(results), prices=prices)
        assert app.batch_stats().requests == 20
        out = proctor(*base, "-r", str(results), prices=prices)
        stats = app.batch_stats()
    assert stats.requests == 50 and stats.batches == 2  # the second batch held only the new 30
    with RunStore.open(results) as store:
        second, first = (r.run_id for r in store.list_runs())
        records = store.records(second)
        reused = store.records(first)
    assert sum(1 for r in records if r.cached_from == first) == 20
    assert sum(1 for r in records if r.batch_id and not r.cached_from) == 30

    def batch_price(rs: Sequence[Record]) -> float:
        p = sum(r.usage.prompt_tokens or 0 for r in rs)
        c = sum(r.usage.completion_tokens or 0 for r in rs)
        return (p * 2.5 + c * 10.0) / 1e6 / 2

    saved = re.search(r"20 calls, .* tokens, \$([0-9.]+) not spent \(at the batch price\)", out)
    cost = re.search(r"tokens, \$([0-9.]+) \(30 answers asked in batches, at the batch", out)
    assert saved is not None and cost is not None, out
    assert float(saved[1]) == pytest.approx(batch_price(reused), abs=5e-5)
    assert float(cost[1]) == pytest.approx(
        batch_price([r for r in records if not r.cached_from]), abs=5e-5
    )
    with (results / "runs" / second / "samples.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sum(1 for row in rows if row["batch_id"] and not row["cached_from"]) == 30
