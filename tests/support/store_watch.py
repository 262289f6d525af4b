"""An end-to-end test's view of a results folder that another process is writing: its store read
read-only, and that process killed at a chosen moment (once enough answers are stored)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest


def query_store(db: Path, sql: str) -> list[tuple[object, ...]]:
    """Rows of `sql`, read-only; [] while the store does not exist or is being created."""
    if not db.exists():
        return []
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as conn:
            return list(conn.execute(sql).fetchall())
    except sqlite3.OperationalError:
        return []


def signal_when(
    proc: subprocess.Popen[bytes],
    ready: Callable[[], bool],
    what: str,
    log: Path,
    *,
    timeout_s: float = 60,
    sig: signal.Signals = signal.SIGKILL,
) -> None:
    """Waits until `ready()`, then sends `sig` to `proc`'s process group. Fails the test, with the
    process's `log`, when the process ends first or `timeout_s` pass (`what`: what it waits for,
    e.g. "10 records")."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"ended (rc {proc.returncode}) before {what}:\n{log.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"not {what} after {timeout_s:g} s:\n{log.read_text()}")
        time.sleep(0.01)
    os.killpg(proc.pid, sig)


def stop_when(
    child: subprocess.Popen[str],
    ready: Callable[[], bool],
    sig: signal.Signals,
    *,
    wait_s: float = 120,
    end_s: float = 60,
) -> tuple[str, str]:
    """Sends `sig` to `child` once `ready()` (or once it ended, or `wait_s` passed: the test's
    assertions then say what went wrong), and returns its (stdout, stderr) when it ends; killed
    if it has not ended `end_s` later."""
    try:
        deadline = time.monotonic() + wait_s
        while child.poll() is None and not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(sig)  # nothing when it already ended
        return child.communicate(timeout=end_s)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
