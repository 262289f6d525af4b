"""docs/commands.md lists every command `proctor --help` lists, and no command it does not."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from support.doc_blocks import REPO


def _help_commands() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "--help"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("Commands:", 1)[1]
    return set(re.findall(r"^  ([a-z][\w-]*)\s", listed, re.MULTILINE))


def test_the_commands_page_lists_every_command() -> None:
    page = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    synopsis = page.split("```bash", 1)[1].split("```", 1)[0]
    documented = set(re.findall(r"^proctor ([a-z][\w-]*)", synopsis, re.MULTILINE))
    commands = _help_commands()
    assert len(commands) >= 15, commands
    assert commands - documented == set(), "commands docs/commands.md does not list"
    assert documented - commands == set(), "docs/commands.md lists commands proctor lacks"
