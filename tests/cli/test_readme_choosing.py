"""The README's "Choosing a model" section holds as written: its set file passes `proctor
validate` (nothing called), and its one command names a set and the leaderboard."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Choosing a model", 1)[1].split("\n## ", 1)[0]


def test_the_readme_set_file_validates(tmp_path: Path) -> None:
    found = re.search(r"```toml\n(.*?)```", _section(), re.DOTALL)
    assert found is not None, "the section has no toml block"
    (tmp_path / "evals.toml").write_text(found.group(1), encoding="utf-8")
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "validate", "evals.toml", "-r", "results"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "set 'weekly': 3 runs (2 models)" in done.stdout
    assert not (tmp_path / "results").exists()


def test_the_first_command_runs_a_set_and_shows_the_leaderboard() -> None:
    first = re.search(r"```bash\n(.*?)\n", _section())
    assert first is not None
    command = first.group(1)
    assert re.match(r"proctor run \w+ \w+", command) and "proctor leaderboard" in command
