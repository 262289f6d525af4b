from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

Replay = Callable[..., AbstractContextManager[tuple[subprocess.Popen[str], str]]]


@contextmanager
def _replay_process(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`python -m proctor.replay ARGS` and the base URL it printed; killed on exit."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor.replay", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=30), "proctor.replay printed no URL within 30 s"
        yield proc, proc.stdout.readline().strip()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def replay_process() -> Replay:
    return _replay_process
