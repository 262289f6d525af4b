"""The task of docs/extending.md ("Your own task") runs as written: copied into a file, through
the CLI (`proctor run my_tasks.py:refund_policy`) and the Python API, graded by its own scorer.
(It was the README's; the README now links to the page.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import proctor

PAGE = Path(__file__).resolve().parents[2] / "docs" / "extending.md"


def snippet() -> str:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Your own task", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "the section has no python block"
    return found.group(1)


def test_the_docs_task_is_about_thirty_lines() -> None:
    assert 20 <= len(snippet().strip().splitlines()) <= 36


def test_the_docs_task_runs_as_written_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "my_tasks.py").write_text(snippet(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb"})
    for reply, correct, no_answer in (("NO, it was opened.", 2, 0), ("Maybe?", 0, 3)):
        results = tmp_path / f"res-{correct}"
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "my_tasks.py:refund_policy",
             "-m", f"fake/const:{reply}", "-r", str(results)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        (folder,) = (results / "runs").iterdir()
        (m,) = json.loads((folder / "results.json").read_text())["models"]
        assert (m["n_items"], m["correct"], m["outcomes"].get("no_answer", 0)) == (
            3, correct, no_answer,
        )  # fmt: skip
        assert "The reply starts with YES or NO" in (folder / "samples.csv").read_text()


def test_the_docs_task_runs_as_written_through_the_python_api(tmp_path: Path) -> None:
    (tmp_path / "my_tasks.py").write_text(snippet(), encoding="utf-8")
    run = proctor.evaluate(
        f"{tmp_path}/my_tasks.py:refund_policy", ["fake/const:YES"], results_dir=tmp_path / "r"
    )
    assert [(i.sample.id, i.score.outcome) for i in run.items] == [
        ("day-12", "correct"), ("day-45", "wrong"), ("opened", "wrong"),
    ]  # fmt: skip
    assert run.task.name == f"{tmp_path.resolve()}/my_tasks.py:refund_policy"
    assert proctor.load_run(run.folder).accuracy() == run.accuracy() == 1 / 3


def test_a_run_left_unfinished_by_the_cli_is_finished_by_the_api(tmp_path: Path) -> None:
    (tmp_path / "my_tasks.py").write_text(snippet(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "my_tasks.py:refund_policy", "-m",
         "fake/const:NO", "-r", "res", "--deadline", "0"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr  # incomplete: nothing asked yet
    (folder,) = (tmp_path / "res" / "runs").iterdir()
    run = proctor.evaluate(
        f"{tmp_path}/my_tasks.py:refund_policy", ["fake/const:NO"], results_dir=tmp_path / "res"
    )
    assert run.id == folder.name and run.complete and run.accuracy() == 2 / 3
