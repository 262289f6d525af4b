"""An eval set through `--executor ray`, as a user runs it (a child process that starts its own
local Ray, as `proctor run --executor ray` does without RAY_ADDRESS), against a loopback stub:
a set file of two tasks, one of them a temperature matrix, × two models. Every item is asked
once per variant (the stub counts each prompt at each temperature), each task's run is complete,
the set exits 0, and the set's leaderboard is written with each run's numbers."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from support.stub import StubConfig, run_stub

pytest.importorskip("ray", reason="ray is not installed (pip install 'ray[default]')")

pytestmark = pytest.mark.slow

N = 8

CONFIG = """\
name = "on-ray"
models = ["{a}", "{b}"]
limit = {n}

[[tasks]]
task = "arithmetic"
temperature = [0.0, 0.7]

[[tasks]]
task = "gsm8k"
"""


def test_a_set_with_a_matrix_runs_on_ray(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("RAY_ADDRESS", "PROCTOR_API_KEY", "OPENAI_API_KEY"):
        env.pop(key, None)
    env.update({"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    results, config = tmp_path / "results", tmp_path / "evals.toml"
    with run_stub(StubConfig(seed=4, correct_rate=0.7)) as stub:
        a, b = (stub.model.replace("stub@", f"{k}@") for k in "ab")
        config.write_text(CONFIG.format(a=a, b=b, n=N))
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "--config", str(config), "--executor",
             "ray", "--shard-size", "5", "-r", str(results)],
            env=env, capture_output=True, text=True, timeout=540,
        )  # fmt: skip
        asked = stub.stats()
    if done.returncode == 2 and "error: Ray did not start" in done.stderr:
        pytest.skip(f"a local Ray could not start here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # arithmetic: 2 models × 2 temperatures; gsm8k: 2 models at the run's temperature 0
    assert asked.requests == asked.completions == 2 * 2 * N + 2 * N
    assert asked.by_temperature == {"0.0": 2 * N + 2 * N, "0.7": 2 * N}
    assert set(asked.by_body.values()) == {1}, "a request was asked twice"

    with closing(sqlite3.connect(results / "proctor.db")) as db:
        runs = db.execute("SELECT id, task, status FROM runs ORDER BY rowid").fetchall()
        ((set_id, status),) = db.execute("SELECT id, status FROM eval_sets").fetchall()
        per_run = dict(db.execute("SELECT run_id, COUNT(*) FROM records GROUP BY run_id"))
    assert [(t, s) for _, t, s in runs] == [("arithmetic", "complete"), ("gsm8k", "complete")]
    assert status == "complete"
    assert [per_run[r] for r, _, _ in runs] == [4 * N, 2 * N]

    board = json.loads((results / "sets" / set_id / "leaderboard.json").read_text("utf-8"))
    # arithmetic's four variants (no gsm8k run), and the set's two models (no plain arithmetic)
    missing = {r["model"]: [t for t, c in r["tasks"].items() if c["state"] == "missing"]
               for r in board["models"]}  # fmt: skip
    assert missing == {
        **{f"{m}#temperature={t}": ["gsm8k"] for m in (a, b) for t in ("0.0", "0.7")},
        a: ["arithmetic"], b: ["arithmetic"],
    }  # fmt: skip
    for row in board["models"]:
        for cell in row["tasks"].values():
            if cell["state"] == "missing":
                continue
            doc = json.loads(
                (results / "runs" / cell["run_id"] / "results.json").read_text("utf-8")
            )
            (mine,) = [m for m in doc["models"] if m["model"] == row["model"]]
            assert (cell["accuracy"], cell["n_items"]) == (mine["accuracy"], mine["n_items"])
