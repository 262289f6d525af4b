"""SIGKILL a real `proctor dialogue` and a real `proctor workflow` mid-way, run the same command
again: the run resumes under the same id, no turn (or step) answered before the kill is asked
again, and the run ends complete.

The model is a scripted server on 127.0.0.1 (a thread of this process) that takes a while per
reply; the CLI runs as a child process in its own process group; the store is watched read-only
through SQLite while the child writes it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from dialogue.test_cases import HONEST, stage_of
from proctor.cli.dialogue import read_tree
from support.store_watch import query_store, signal_when
from support.stub.scripted import Scripted, ScriptedServer, run_scripted
from support.turn_results import graded_result

pytestmark = pytest.mark.slow
DELAY_S = 0.4
ACME = read_tree("esg-acme-en")
NOTE = "## Issue\nNo notice duty.\n## Revision\nAdd a notice duty.\n## Legal basis\nArticle 590."
SUMMARY = '{"clause": "14", "conflict": true, "revision": "Require notice within 5 days."}'


def script(messages: list[dict[str, Any]]) -> Scripted:
    asked = messages[-1]["content"]
    if asked.startswith("[note]"):
        return Scripted(NOTE, delay_s=DELAY_S)
    if asked.startswith("[summary]"):
        return Scripted(SUMMARY, delay_s=DELAY_S)
    return Scripted(HONEST["esg-acme-en"][stage_of(ACME, asked)], delay_s=DELAY_S)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with run_scripted(script) as handle:
        yield handle


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"PYTHONUNBUFFERED": "1", "NO_COLOR": "1", "COLUMNS": "200"})
    return env


def _proctor(command: str, what: str, server: ScriptedServer, results: Path) -> list[str]:
    return [sys.executable, "-m", "proctor", command, what, "-m", server.model, "-r", str(results)]


def _ok_turns(db: Path) -> list[tuple[int, str, str]]:
    rows = query_store(
        db, "SELECT position, step, asked FROM turns WHERE status = 'ok' ORDER BY position"
    )
    return [(int(str(p)), str(s), str(a)) for p, s, a in rows]


def _stop_after(
    command: list[str], db: Path, turns: int, log: Path, sig: signal.Signals = signal.SIGKILL
) -> int:
    """Start `command`, send its process group `sig` once `turns` turns are stored; its rc."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=_env(), start_new_session=True
        )
        try:
            signal_when(proc, lambda: len(_ok_turns(db)) >= turns, f"{turns} turns", log, sig=sig)
            return proc.wait(30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def _kill_then_resume(
    command: list[str], results: Path, turns: int, server: ScriptedServer, tmp_path: Path
) -> tuple[list[tuple[int, str, str]], dict[str, Any]]:
    db = results / "proctor.db"
    assert _stop_after(command, db, turns, tmp_path / "killed.log") == -signal.SIGKILL
    before = _ok_turns(db)
    assert len(before) >= turns
    asked_before = len(server.asked)
    again = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "resumed run" in again.stdout
    after = Counter(server.asked[asked_before:])
    for _position, _step, asked in before:
        assert after[asked] == 0, f"{asked!r} was answered before the kill but asked again"
    with closing(sqlite3.connect(db)) as conn:
        runs = conn.execute("SELECT id, status FROM runs").fetchall()
    assert len(runs) == 1 and runs[0][1] == "complete", runs
    return before, graded_result(results)


def test_killed_dialogue_resumes_at_the_first_unanswered_turn(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    command = _proctor("dialogue", "esg-acme-en", server, results)
    before, doc = _kill_then_resume(command, results, 2, server, tmp_path)
    assert doc["status"] == "complete"
    assert doc["path"] == ["facts", "compare", "precise", "recommend"]
    assert doc["consistency"] == 1.0 and doc["stage_mean"] == 1.0
    assert [t["asked"] for t in doc["turns"][: len(before)]] == [a for *_, a in before]


def test_killed_workflow_asks_no_finished_step_again(
    server: ScriptedServer, tmp_path: Path
) -> None:
    flow = json.loads((Path(__file__).parents[1] / "workflow/cases/review.json").read_text())
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(flow), encoding="utf-8")
    results = tmp_path / "results"
    command = _proctor("workflow", str(path), server, results)
    before, doc = _kill_then_resume(command, results, 2, server, tmp_path)  # calc + note
    assert doc["outcome"] == "complete" and doc["score"] == 1.0
    assert [s["step"] for s in doc["steps"]] == ["calc", "note", "summary"]
    assert [s["resumed"] for s in doc["steps"]][: len(before)] == [True] * len(before)


def test_ctrl_c_keeps_the_turns_and_resume_run_finishes(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    db = results / "proctor.db"
    command = _proctor("dialogue", "esg-acme-en", server, results)
    log = tmp_path / "interrupted.log"
    assert _stop_after(command, db, 1, log, signal.SIGINT) == 130, log.read_text()
    assert "interrupted" in log.read_text()
    with closing(sqlite3.connect(db)) as conn:
        ((run_id, status),) = conn.execute("SELECT id, status FROM runs").fetchall()
    assert status == "interrupted"
    kept = _ok_turns(db)
    assert kept
    other = subprocess.run(
        [*command[:4], "lithium-zh", *command[5:], "--resume", run_id],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert other.returncode == 2 and "another version" in other.stderr, other.stderr
    asked_before = len(server.asked)
    done = subprocess.run(
        [*command, "--resume", run_id[:22]], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not {a for *_, a in kept} & set(server.asked[asked_before:])
