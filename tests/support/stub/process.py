"""The stub in a process of its own: `python -m support.stub` needs the tests' folder on the
child's PYTHONPATH, since the stub ships in no wheel (tests/support/stub)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def stub_command(*args: str) -> list[str]:
    """The command line of a stub process: `python -m support.stub ARGS`."""
    return [sys.executable, "-m", "support.stub", *args]


def stub_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with tests/ first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    parts = [str(TESTS), *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env
