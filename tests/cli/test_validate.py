"""`proctor validate FILE` and `proctor run --config FILE` as a user runs them (a child
process, for the exit codes): a good file is checked without a call and runs as a set; a bad one
exits 2 naming the file, the line and the field, and writes nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

SET = """\
name = "weekly"
models = ["fake/const:42", "fake/const:7"]
limit = 3

[[tasks]]
task = "arithmetic"
seeds = [1, 2]

[[tasks]]
task = "gsm8k"
"""


def _proctor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_validate_a_good_file_calls_nothing(tmp_path: Path) -> None:
    (tmp_path / "evals.toml").write_text(SET)
    done = _proctor(tmp_path, "validate", "evals.toml", "-r", "results")
    assert done.returncode == 0, done.stderr
    assert "evals.toml: ok. set 'weekly': 3 runs (2 models), 18 calls" in done.stdout
    assert not (tmp_path / "results").exists()


def test_a_bad_file_exits_2_naming_file_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "evals.toml").write_text(SET.replace('task = "gsm8k"', 'task = "gsm8k"\nlimt = 2'))
    for args in (("validate", "evals.toml"), ("run", "--config", "evals.toml")):
        done = _proctor(tmp_path, *args, "-r", "results")
        assert done.returncode == 2, done.stdout + done.stderr
        assert "evals.toml:11: field 'tasks[1].limt': unknown key" in done.stderr
        assert not (tmp_path / "results").exists()


def test_run_config_asks_the_set_it_writes_down(tmp_path: Path) -> None:
    (tmp_path / "evals.toml").write_text(SET)
    done = _proctor(tmp_path, "run", "--config", "evals.toml", "-r", "results")
    assert done.returncode == 0, done.stdout + done.stderr
    with closing(sqlite3.connect(tmp_path / "results" / "proctor.db")) as db:
        assert db.execute("SELECT name, status FROM eval_sets").fetchall() == [
            ("weekly", "complete")
        ]
        runs = db.execute("SELECT task, seed, dataset_size, models FROM runs ORDER BY rowid")
        assert [r[:3] for r in runs] == [("arithmetic", 1, 3), ("arithmetic", 2, 3),
                                          ("gsm8k", None, 3)]  # fmt: skip
        assert db.execute("SELECT COUNT(*) FROM records").fetchone() == (18,)
    again = _proctor(tmp_path, "run", "--config", "evals.toml", "arithmetic", "-r", "results")
    assert again.returncode == 2
    assert "--config names the tasks and models" in again.stdout + again.stderr
