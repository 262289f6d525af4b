"""The response cache through the CLI: `proctor run` twice against the stub on 127.0.0.1, the
requests counted at the stub, the records read back from the store."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.store import RunStore
from support.stub.config import StubConfig
from support.stub.server import StubHandle, run_stub


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PROCTOR_PRICES"):
        env.pop(key, None)
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    env.update(extra)
    return env


def proctor(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def stub() -> object:
    with run_stub(StubConfig(correct_rate=0.7, seed=3)) as handle:
        yield handle


def run(stub: StubHandle, results: Path, *extra: str, **env: str) -> tuple[str, int, str]:
    """(run id, requests the stub got, stdout) of one `proctor run arithmetic --n 200`."""
    before = stub.stats().requests
    done = proctor(
        "run",
        "arithmetic",
        "--n",
        "200",
        "-m",
        stub.model,
        "--prompt",
        "A",
        "-r",
        str(results),
        *extra,
        **env,
    )
    with RunStore.open(results) as store:
        run_id = store.list_runs()[0].run_id
    return run_id, stub.stats().requests - before, done.stdout


def records(results: Path, run_id: str) -> dict[str, str]:
    """sample id → the run it was cached from ("" when asked)."""
    with RunStore.open(results) as store:
        return {r.sample_id: r.cached_from for r in store.records(run_id)}


def test_a_larger_limit_asks_only_the_new_items(stub: StubHandle, tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."openai-compat/*"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n')
    first, asked, _ = run(stub, tmp_path, "--limit", "120")
    assert asked == 120
    second, asked, out = run(stub, tmp_path, "--limit", "200", PROCTOR_PRICES=str(prices))
    assert second != first
    assert asked == 80  # only the new items reached the server
    origin = records(tmp_path, second)
    assert len(origin) == 200
    assert sorted(origin.values()).count(first) == 120
    assert set(records(tmp_path, first)) <= {s for s, o in origin.items() if o == first}
    assert "120 answers reused from the response cache" in out
    assert f"120 answers reused from the response cache (run {first})" in out
    # What reuse saved: the first run's tokens at the list price; the cost, only the 80 asked.
    with RunStore.open(tmp_path) as store:
        paid = [r for r in store.records(second) if not r.cached_from]
        reused = [r for r in store.records(first)]
    spent = sum(r.usage.prompt_tokens or 0 for r in paid) * 2.5
    spent += sum(r.usage.completion_tokens or 0 for r in paid) * 10.0
    kept = sum(r.usage.prompt_tokens or 0 for r in reused) * 2.5
    kept += sum(r.usage.completion_tokens or 0 for r in reused) * 10.0
    saved = re.search(r"120 calls, [0-9,]+ prompt \+ [0-9,]+ completion tokens, \$([0-9.]+) not "
                      r"spent \(at the list price\)", out)
    cost = re.search(r"^cost .*tokens, \$([0-9.]+)$", out, re.M)
    assert saved is not None and cost is not None, out
    assert float(saved[1]) == pytest.approx(kept / 1e6, abs=5e-5) and kept > 0
    assert float(cost[1]) == pytest.approx(spent / 1e6, abs=5e-5) and spent > 0
    # samples.csv, the run's file of every answer, names the run each reused answer came from.
    with (tmp_path / "runs" / second / "samples.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 200 and sum(row["cached_from"] == first for row in rows) == 120
    assert {row["cached_from"] for row in rows} == {first, ""}
    # The grades of reused answers are the grades of the same replies.
    with RunStore.open(tmp_path) as store:
        a, b = store.scores(first), store.scores(second)
    same = [k for k in a if (k[0], k[1], k[2]) in b]
    assert len(same) == 120 and all(a[k].outcome == b[k].outcome for k in same)
    # Everything is cached now: a third run asks nothing.
    third, asked, _ = run(stub, tmp_path)
    assert asked == 0 and set(records(tmp_path, third).values()) <= {first, second}


def test_sampling_asks_again_unless_cache_always(stub: StubHandle, tmp_path: Path) -> None:
    hot = ("--temperature", "0.8", "--limit", "30")
    _, asked, _ = run(stub, tmp_path, *hot)
    assert asked == 30
    _, asked, out = run(stub, tmp_path, *hot)
    assert asked == 30 and "reused" not in out  # deterministic (the default) never reuses
    third, asked, _ = run(stub, tmp_path, *hot, "--cache", "always")
    assert asked == 0
    assert all(records(tmp_path, third).values())
    _, asked, _ = run(stub, tmp_path, "--limit", "30", "--cache", "off")
    assert asked == 30  # temperature 0 but off: asks


def test_another_key_owner_is_not_served_unless_shared(stub: StubHandle, tmp_path: Path) -> None:
    lim = ("--limit", "20")
    _, asked, _ = run(stub, tmp_path, *lim, PROCTOR_API_KEY="sk-alice-0000")
    assert asked == 20
    _, asked, _ = run(stub, tmp_path, *lim, PROCTOR_API_KEY="sk-alice-0000")
    assert asked == 0
    _, asked, _ = run(stub, tmp_path, *lim, PROCTOR_API_KEY="sk-bob-1111")
    assert asked == 20  # bob's key: alice's answers are not his
    _, asked, _ = run(stub, tmp_path, *lim, "--cache-share-keys", PROCTOR_API_KEY="sk-carol")
    assert asked == 0
    # The store holds fingerprints of the owners, never a key.
    raw = (tmp_path / "proctor.db").read_bytes()
    assert b"sk-alice" not in raw and b"sk-bob" not in raw
    stats = proctor("cache", "stats", "-r", str(tmp_path)).stdout
    assert "40 answers (2 key owners)" in stats


def test_estimate_counts_only_what_the_cache_cannot_answer(
    stub: StubHandle, tmp_path: Path
) -> None:
    run(stub, tmp_path, "--limit", "30")
    before = stub.stats().requests
    estimate = ("run", "arithmetic", "--n", "200", "-m", stub.model, "--prompt", "A")
    estimate += ("-r", str(tmp_path), "--limit", "50", "--estimate")
    out = proctor(*estimate).stdout
    assert "20 calls in all (30 answers from the response cache)" in out
    assert "50 calls in all;" in proctor(*estimate, "--cache", "off").stdout
    hot = (*estimate, "--temperature", "0.8")
    assert "50 calls in all;" in proctor(*hot).stdout  # sampling: asked again
    assert "50 calls in all;" in proctor(*hot, "--cache", "always").stdout  # another request
    assert stub.stats().requests == before  # nothing was called
    stats = proctor("cache", "stats", "-r", str(tmp_path)).stdout
    assert "30 answers (1 key owner)" in stats and "reused 0 times" in stats  # nothing marked used


def test_prune_forgets_and_the_next_run_asks_again(stub: StubHandle, tmp_path: Path) -> None:
    run(stub, tmp_path, "--limit", "10")
    kept = proctor("cache", "prune", "--older-than", "30d", "-r", str(tmp_path)).stdout
    assert "pruned 0 cached answers" in kept and "10 left" in kept
    gone = proctor("cache", "prune", "--older-than", "0s", "-r", str(tmp_path)).stdout
    assert "pruned 10 cached answers" in gone
    _, asked, _ = run(stub, tmp_path, "--limit", "10")
    assert asked == 10
    with RunStore.open(tmp_path) as store:
        assert len(store.list_runs()) == 2  # the runs keep their records


def test_bad_cache_option_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "proctor",
            "run",
            "arithmetic",
            "--cache",
            "sometimes",
            "-r",
            str(tmp_path),
        ],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "sometimes" in done.stdout + done.stderr
    assert not (tmp_path / "proctor.db").exists()
