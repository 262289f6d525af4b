"""SIGKILL a real `proctor run` mid-way, run the same command again: the run resumes under the
same id, asks only for what was not stored, and ends with exactly one answer per sample.

The model is our stub on 127.0.0.1 (thread of this process); the CLI runs as a child process;
the store is watched read-only through SQLite while the child writes it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from proctor.prompts.arithmetic import build_prompt
from proctor.tasks.arithmetic import load
from proctor.types import Sample
from support.store_watch import query_store, signal_when
from support.stub import StubConfig, StubHandle, StubStats, prompt_key, run_stub

pytestmark = pytest.mark.slow

N = 40
LATENCY_S = 0.1  # 40 calls, 4 at a time: about a second of calls to kill into
Spawn = Callable[[Sequence[str], Path], subprocess.Popen[bytes]]


@pytest.fixture
def stub() -> Iterator[StubHandle]:
    with run_stub(StubConfig(seed=1, latency_s=LATENCY_S)) as handle:
        yield handle


def _command(stub: StubHandle, results: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "proctor",
        "run",
        "arithmetic",
        "--n",
        str(N),
        "-m",
        stub.model,
        "-r",
        str(results),
        "--concurrency",
        "4",
    ]


def _stored(db: Path) -> set[tuple[str, str]]:
    return {(str(m), str(s)) for m, s in query_store(db, "SELECT model, sample_id FROM records")}


def _kill_when_stored(proc: subprocess.Popen[bytes], db: Path, at_least: int, log: Path) -> None:
    signal_when(proc, lambda: len(_stored(db)) >= at_least, f"{at_least} records", log)
    assert proc.wait(10) == -signal.SIGKILL


def _keys(samples: Sequence[Sample], variant: str, lang: str) -> dict[str, str]:
    """sample id → the stub's key for its prompt."""
    return {s.id: prompt_key(build_prompt(s, variant, lang).messages[-1].content) for s in samples}


def _assert_not_asked_again(
    before: StubStats, after: StubStats, stored: set[tuple[str, str]], keys: dict[str, str]
) -> None:
    for _, sample_id in stored:
        key = keys[sample_id]
        assert before.by_prompt.get(key, 0) >= 1, sample_id
        assert after.by_prompt.get(key, 0) == before.by_prompt[key], (
            f"{sample_id} was stored before the kill but asked again after it"
        )


def _assert_complete(results: Path, model: str, keys: dict[str, str], stats: StubStats) -> None:
    db = results / "proctor.db"
    runs = query_store(db, "SELECT id, status FROM runs")
    assert len(runs) == 1, runs
    run_id, status = runs[0]
    assert status == "complete"
    rows = query_store(db, "SELECT model, sample_id, epoch, status FROM records")
    assert len(rows) == N
    assert {(m, s) for m, s, _, _ in rows} == {(model, sid) for sid in keys}
    assert {st for *_, st in rows} == {"ok"}
    # Every sample was asked, and the stub saw no prompt that is not on the paper.
    assert set(stats.by_prompt) == set(keys.values())
    doc = json.loads((results / "runs" / str(run_id) / "results.json").read_text())
    assert doc["run"]["run_id"] == run_id
    (m,) = doc["models"]
    assert (m["model"], m["n_items"], m["n_scored"], m["correct"]) == (model, N, N, N)
    assert sum(m["outcomes"].values()) == N


def _paper(results: Path) -> tuple[dict[str, str], str]:
    """(sample id → prompt key, run id) for the stored run, from its own variant and language."""
    ((run_id, variant, lang),) = query_store(
        results / "proctor.db", "SELECT id, prompt_variant, lang FROM runs"
    )
    samples = load(None, N).samples
    rows = query_store(results / "proctor.db", "SELECT sample_id FROM samples")
    stored_ids = {str(s) for (s,) in rows}
    assert stored_ids == {s.id for s in samples}
    return _keys(samples, str(variant), str(lang)), str(run_id)


def _finish(cmd: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(cmd, capture_output=True, env=env, timeout=120, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_killed_run_resumes_without_asking_twice(
    tmp_path: Path, stub: StubHandle, spawn_logged: Spawn, child_environ: dict[str, str]
) -> None:
    results = tmp_path / "results"
    db = results / "proctor.db"
    cmd = _command(stub, results)
    log = tmp_path / "first.log"
    _kill_when_stored(spawn_logged(cmd, log), db, 10, log)
    stored = _stored(db)
    assert 10 <= len(stored) < N, f"the kill did not land mid-run ({len(stored)} stored)"
    before = stub.stats()
    keys, run_id = _paper(results)

    out = _finish(cmd, child_environ)

    assert f"resumed run {run_id}" in out
    after = stub.stats()
    _assert_not_asked_again(before, after, stored, keys)
    _assert_complete(results, stub.model, keys, after)
    # The resumed run asked only for what was missing (no faults: one request each).
    asked_after = sum(after.by_prompt.values()) - sum(before.by_prompt.values())
    assert asked_after == N - len(stored)


def test_two_kills_then_completion(
    tmp_path: Path, stub: StubHandle, spawn_logged: Spawn, child_environ: dict[str, str]
) -> None:
    results = tmp_path / "results"
    db = results / "proctor.db"
    cmd = _command(stub, results)
    log1, log2 = tmp_path / "first.log", tmp_path / "second.log"

    _kill_when_stored(spawn_logged(cmd, log1), db, 6, log1)
    stored1, stats1 = _stored(db), stub.stats()
    assert 6 <= len(stored1) < N
    keys, run_id = _paper(results)

    _kill_when_stored(spawn_logged(cmd, log2), db, len(stored1) + 12, log2)
    stored2, stats2 = _stored(db), stub.stats()
    assert stored1 < stored2 and len(stored2) < N, (len(stored1), len(stored2))
    _assert_not_asked_again(stats1, stats2, stored1, keys)

    out = _finish(cmd, child_environ)

    assert f"resumed run {run_id}" in out
    after = stub.stats()
    _assert_not_asked_again(stats1, after, stored1, keys)
    _assert_not_asked_again(stats2, after, stored2, keys)
    _assert_complete(results, stub.model, keys, after)
