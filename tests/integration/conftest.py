from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

import pytest

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback only: httpx would send 127.0.0.1 through a proxy named in the environment."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def child_env() -> dict[str, str]:
    """The environment for child processes: no proxy, no key, wide plain output."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY"):
        env.pop(key, None)
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    return env


Spawn = Callable[[Sequence[str], Path], subprocess.Popen[bytes]]


@pytest.fixture
def spawn(child_env: dict[str, str]) -> Iterator[Spawn]:
    """Start a child in its own process group, output to a file; every group is killed at
    teardown, whatever happened."""
    children: list[subprocess.Popen[bytes]] = []
    logs: list[IO[bytes]] = []

    def start(cmd: Sequence[str], log: Path) -> subprocess.Popen[bytes]:
        out = log.open("wb")
        logs.append(out)
        proc = subprocess.Popen(
            list(cmd), stdout=out, stderr=subprocess.STDOUT, env=child_env, start_new_session=True
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
