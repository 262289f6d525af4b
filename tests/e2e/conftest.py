from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from support.judge_suite import run_suite, suite_path

__all__ = ["run_suite", "suite_path"]  # the judge's fixtures, for test_judge_embedded

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    env.update(extra)
    return env


def proctor_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "proctor", *args]


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Child processes started by a test; every one's group is killed at teardown."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def spawn(
    procs: list[subprocess.Popen[bytes]], cmd: Sequence[str], log: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    proc = subprocess.Popen(
        list(cmd), stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    out.close()
    procs.append(proc)
    return proc


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str

    @property
    def output(self) -> str:
        return self.out + self.err


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """`proctor ARGS` run in this process through its real entry point (`cli.app.main`, exit
    codes and error lines included): the public path, without a child's start-up each time."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)

    def run(*args: str) -> CliResult:
        from proctor.cli.app import main

        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["proctor", *args])
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


# The fixtures of the kill/resume and llama-server tests, renamed where
# the functions above already hold the name: a fixture environment and a spawner whose children's
# output goes to a log file and whose process groups are killed at teardown.


@pytest.fixture
def child_environ() -> dict[str, str]:
    """The environment for child processes: no proxy, no key, wide plain output."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY"):
        env.pop(key, None)
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    return env


Spawn = Callable[[Sequence[str], Path], subprocess.Popen[bytes]]


@pytest.fixture
def spawn_logged(child_environ: dict[str, str]) -> Iterator[Spawn]:
    """Start a child in its own process group, output to a file; every group is killed at
    teardown, whatever happened."""
    children: list[subprocess.Popen[bytes]] = []
    logs: list[IO[bytes]] = []

    def start(cmd: Sequence[str], log: Path) -> subprocess.Popen[bytes]:
        out = log.open("wb")
        logs.append(out)
        proc = subprocess.Popen(
            list(cmd),
            stdout=out,
            stderr=subprocess.STDOUT,
            env=child_environ,
            start_new_session=True,
        )
        children.append(proc)
        return proc

    try:
        yield start
    finally:
        for proc in children:
            kill_group(proc)
        for out in logs:
            out.close()


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    """Send `sig` to the child's process group (it leads its own session) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


FLAT_ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}


def flat_cli(*args: str | Path) -> tuple[int, str]:
    """`proctor ARGS` in this process (typer's runner, 250 columns, no colour): its exit code and
    its output on one line, so a sentence is found whatever the wrapping."""
    from typer.testing import CliRunner

    from proctor.cli.app import app

    result = CliRunner().invoke(app, [str(a) for a in args], env=FLAT_ENV, catch_exceptions=False)
    return result.exit_code, " ".join(result.output.split())


def flat_cli_or_refusal(*args: str | Path) -> tuple[int, str]:
    """`flat_cli`, but a ProctorError the command lets out (a refused policy or set file, which
    `proctor`'s entry point reports with exit 2) is code 2 and its message on one line."""
    from typer.testing import CliRunner

    from proctor.cli.app import app
    from proctor.errors import ProctorError

    result = CliRunner().invoke(app, [str(a) for a in args], env=FLAT_ENV)
    if isinstance(result.exception, ProctorError):
        return 2, " ".join(str(result.exception).split())
    return result.exit_code, " ".join(result.output.split())


def policy_file(tmp_path: Path, text: str) -> Path:
    """A release policy (`proctor gate --policy`) written to tmp_path/release.toml."""
    path = tmp_path / "release.toml"
    path.write_text(text, encoding="utf-8")
    return path
