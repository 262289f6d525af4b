"""docs/commands.md lists every command `proctor --help` lists, and no command it does not; every
`--option` the documentation names is one a proctor command (or `python -m proctor.replay`)
takes, or one of another program named here with the program."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache

from typer.testing import CliRunner

from proctor.cli.app import app
from support.doc_blocks import REPO, pages

ENV = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}

# Options of other programs that the pages show beside proctor's.
FOREIGN = {
    "--a-sizes": "bench/run_all.py",
    "--parts": "bench/run_all.py",
    "--quick": "bench/run_all.py",
    "--reps": "bench/run_all.py",
    "--batches": "the tests' stub server (python -m support.stub)",
    "--batch-end-after": "the tests' stub server",
    "--batch-error-rate": "the tests' stub server",
    "--batch-expire": "the tests' stub server",
    "--fault-rate": "the tests' stub server",
    "--faults": "the tests' stub server",
    "--refuse-tools": "the tests' stub server",
    "--head": "ray start",
    "--address": "ray start",
    "--no-deps": "pip",
    "--log_samples": "lm-evaluation-harness",
    "--output_path": "lm-evaluation-harness",
}
OPTION = re.compile(r"--[a-z][a-z0-9_-]+")


def _help(*args: str) -> str:
    """A command's help, in-process (as `proctor ARGS --help` prints it)."""
    result = CliRunner().invoke(app, [*args, "--help"], env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


def _replay_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "proctor.replay", "--help"], capture_output=True, text=True,
        timeout=120, env={**os.environ, **ENV},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _commands(text: str) -> list[str]:
    if "Commands:" not in text:
        return []
    return re.findall(r"^  ([a-z][\w-]*)\s", text.split("Commands:", 1)[1], re.MULTILINE)


@cache
def _every_help() -> str:
    top = _help()
    texts = [top, _replay_help()]
    for command in _commands(top):
        text = _help(command)
        texts += [text, *(_help(command, sub) for sub in _commands(text))]
    return "\n".join(texts)


def test_the_commands_page_lists_every_command() -> None:
    page = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    synopsis = page.split("```bash", 1)[1].split("```", 1)[0]
    documented = set(re.findall(r"^proctor ([a-z][\w-]*)", synopsis, re.MULTILINE))
    commands = set(_commands(_help()))
    assert len(commands) >= 15, commands
    assert commands - documented == set(), "commands docs/commands.md does not list"
    assert documented - commands == set(), "docs/commands.md lists commands proctor lacks"


def test_every_option_the_docs_name_exists() -> None:
    known = set(OPTION.findall(_every_help())) | set(FOREIGN)
    assert {"--max-failures", "--junit", "--json", "--replies", "--margin"} <= known
    unknown = {
        f"{page.relative_to(REPO)}: {option}"
        for page in pages()
        for option in OPTION.findall(page.read_text(encoding="utf-8"))
        if option not in known
    }
    assert not unknown, f"options no command takes: {sorted(unknown)}"
