"""The leaderboard reads each run's stored cells, and a re-grade makes them again: through the
CLI against a loopback stub. A run is asked (its report stores its cells) and ranked; its
stored grades are then spoiled behind proctor's back (every answer "wrong": the board follows,
its cells dropped by the store's triggers); `proctor score RUN` re-grades it with the rules,
and the board is the run's results.json again, as it was the first time. `proctor run` and
`proctor score` make the cells from their report's statistics: in them the cells' own reading
of the answers raises."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from proctor.store.run_store import DB_NAME
from support.stub import StubConfig, run_stub

pytestmark = pytest.mark.slow

N = 12


REFUSING = (
    "import sys\n"
    "import proctor.store.board_cells as cells\n"
    "def refused(*_, **__):\n"
    "    raise AssertionError('the report read the answers again for its cells')\n"
    "cells._marks = refused\n"
    "from proctor.__main__ import main\n"
    "sys.argv[0] = 'proctor'\n"
    "main()\n"
)
"""`python -m proctor`, the cells' reading of the answers (`board_cells._marks`) refused."""


def _proctor(*args: str, refuse_marks: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    start = ["-c", REFUSING] if refuse_marks else ["-m", "proctor"]
    return subprocess.run(
        [sys.executable, *start, *args],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _board(results: Path) -> dict[str, Any]:
    done = _proctor("leaderboard", "--json", "-r", str(results))
    assert done.returncode == 0, done.stderr
    board: dict[str, Any] = json.loads(done.stdout)
    return board


def _cell(board: dict[str, Any]) -> dict[str, Any]:
    (row,) = board["models"]
    cell: dict[str, Any] = row["tasks"]["arithmetic"]
    return cell


def test_a_regrade_is_on_the_board(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig(seed=3, correct_rate=0.5)) as stub:
        done = _proctor("run", "arithmetic", "--limit", str(N), "-m", stub.model,
                        "-r", str(results), refuse_marks=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    db = sqlite3.connect(results / DB_NAME)
    stored = "SELECT COUNT(*) FROM board_cells"
    assert db.execute(stored).fetchone()[0] == 1  # stored with the run's report
    db.close()
    first = _board(results)
    cell = _cell(first)
    doc = json.loads((results / "runs" / cell["run_id"] / "results.json").read_text())
    (mine,) = doc["models"]
    keys = ("accuracy", "ci_low", "ci_high", "n_scored", "n_items")
    assert {k: cell[k] for k in keys} == {k: mine[k] for k in keys}
    assert 0 < mine["accuracy"] < 1  # right and wrong answers both: a spoiled grade shows

    db = sqlite3.connect(results / DB_NAME)
    with db:
        db.execute("UPDATE scores SET outcome = 'wrong' WHERE run_id = ?", (cell["run_id"],))
    db.close()
    spoiled = _cell(_board(results))
    assert spoiled["accuracy"] == 0.0 and spoiled["n_scored"] == mine["n_scored"]

    regraded = _proctor("score", cell["run_id"], "-r", str(results), refuse_marks=True)
    assert regraded.returncode == 0, regraded.stdout + regraded.stderr
    again = _board(results)
    assert again == first
