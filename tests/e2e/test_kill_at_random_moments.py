"""SIGKILL a run at 5 random moments, resuming each time: the final stored results equal those
of an uninterrupted run, and the stub never saw a second request for a sample already stored."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from proctor.prompts.arithmetic import build_prompt
from proctor.tasks.registry import get_task, load_for_run
from support.stub.app import prompt_key
from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import child_env, proctor_cmd, spawn

N = 60


def stored(results: Path) -> dict[str, tuple[str, str]]:
    db = results / "proctor.db"
    if not db.exists():
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        rows = con.execute("SELECT sample_id, status, text FROM records").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return {}
    finally:
        con.close()
    return {sid: (status, text) for sid, status, text in rows}


def run_args(model: str, results: Path) -> list[str]:
    return proctor_cmd(
        "run", "arithmetic", "--n", str(N), "-m", model, "-r", str(results), "--concurrency", "4"
    )


def test_five_kills_then_resume_equals_an_uninterrupted_run(
    tmp_path: Path, children: list[subprocess.Popen[bytes]]
) -> None:
    rng = random.Random(20261129)
    config = StubConfig(seed=3, latency_s=0.03, correct_rate=0.7)
    with run_stub(config) as stub:
        clean = tmp_path / "clean"
        done = subprocess.run(run_args(stub.model, clean), env=child_env(), capture_output=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
        expected = stored(clean)
        assert len(expected) == N

        killed = tmp_path / "killed"
        stub.reset()
        samples = load_for_run(get_task("arithmetic"), n=N).samples
        key_of = {
            s.id: prompt_key(build_prompt(s, "B", "en").messages[-1].content) for s in samples
        }
        counts_at_start = dict.fromkeys(key_of, 0)
        for k in range(5):
            before = stored(killed)
            target = min(N - 1, len(before) + rng.randint(2, 8))
            proc = spawn(children, run_args(stub.model, killed), tmp_path / f"log{k}", child_env())
            deadline = time.monotonic() + 60
            while len(stored(killed)) < target and proc.poll() is None:
                assert time.monotonic() < deadline, "the run made no progress"
                time.sleep(rng.uniform(0.0, 0.02))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            after_kill = stored(killed)
            assert set(before) <= set(after_kill), "a kill never loses a stored answer"
            # The session just killed never asked again for a sample stored before it began.
            asked = stub.stats().by_prompt
            for sid in before:
                assert asked[key_of[sid]] == counts_at_start[sid], f"{sid} asked again"
            counts_at_start = {sid: asked.get(key_of[sid], 0) for sid in key_of}
        final = subprocess.run(run_args(stub.model, killed), env=child_env(), capture_output=True,
                               timeout=120)  # fmt: skip
        assert final.returncode == 0, final.stdout.decode() + final.stderr.decode()
        counts = stub.stats().by_prompt
        for sid in after_kill:
            assert counts[key_of[sid]] == counts_at_start[sid], f"{sid} asked again on resume"

    result = stored(killed)
    assert result == expected, "resumed results must equal the uninterrupted run's"
    # A prompt may be asked twice only if its answer was in flight (not stored) at a kill.
    assert sum(counts.values()) <= N + 5 * 4
    assert len(counts) == N
    con = sqlite3.connect(killed / "proctor.db")
    try:
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert con.execute("SELECT COUNT(*) FROM records").fetchone()[0] == N
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
