"""The sandbox as an unprivileged user: run as nobody (setpriv) with the system's Python, it
must still find user namespaces, hide the host, drop every capability, and bound a process
tree's memory without cgroups (the launcher counts it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import proctor

SYSTEM_PYTHON = "/usr/bin/python3"
SRC = Path(proctor.__file__).resolve().parent.parent


def _usable() -> str | None:
    if os.geteuid() != 0:
        return "needs root to become nobody"
    if shutil.which("setpriv") is None or not os.access(SYSTEM_PYTHON, os.X_OK):
        return "needs setpriv and /usr/bin/python3"
    done = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info >= (3, 11))"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.stdout.strip() != "True":
        return "/usr/bin/python3 is older than 3.11"
    return None


@pytest.mark.skipif(_usable() is not None, reason=str(_usable()))
def test_an_unprivileged_user_gets_namespaces_and_bounded_memory() -> None:
    done = subprocess.run(
        ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
         SYSTEM_PYTHON, "-I", str(Path(__file__).with_name("nonroot_probe.py")), str(SRC)],
        capture_output=True, text=True, timeout=300, check=False, cwd="/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    print("\n".join(found["lines"]))
    assert found["uid"] == 65534
    if found["mode"] == "none":
        pytest.skip("user namespaces are not allowed here: " + found["lines"][0])
    facts = found["facts"]
    assert found["mode"] == "userns"
    assert facts["interfaces"] == ["lo"] and facts["cap_eff"] == "0" * 16
    assert facts["writes_outside_work"] == [] and facts["proc_mounted"] is False
    assert not {"tmp", "home", "root", "proc", "run"} & set(facts["top_level"])
    runs = found["runs"]
    assert runs["plain"]["status"] == "passed"
    # four processes of 400 MiB each: no one of them hits RLIMIT_AS, their sum hits the limit
    assert runs["tree_bomb"]["status"] == "memory_limit", runs["tree_bomb"]
    if found["cgroups"] == "none":
        assert runs["tree_bomb"]["peak"] is not None
        assert runs["tree_bomb"]["peak"] < (1 << 30) + (400 << 20)
    assert runs["fork_bomb"]["status"] in ("timeout", "killed", "failed"), runs["fork_bomb"]
