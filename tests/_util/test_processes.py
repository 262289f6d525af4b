"""`alive`: a leftover named after a pid is stale only when that process is gone."""

from __future__ import annotations

import os
import subprocess
import sys

from proctor._util.processes import alive


def test_this_process_is_alive() -> None:
    assert alive(os.getpid())


def test_a_process_that_ended_is_not() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: its pid names no process now
    assert not alive(child.pid)
