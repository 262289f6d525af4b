"""Which isolation this machine allows, found once per process by trying it.

Three modes, strongest first:
- "root": we are root; `unshare` gives the program its own network (no interface but a down
  loopback), mount (every mount read-only except its work folder; home folders hidden), PID, IPC
  and UTS namespaces, and the program runs as a fresh unprivileged uid with no capabilities.
- "userns": we are not root but may create a user namespace: the same namespaces, the program
  keeps our uid with every capability dropped.
- "none": no namespaces could be made (no `unshare`, or the kernel refuses): only resource limits,
  a process group killed on timeout and a clean environment. The program can reach the network
  and write wherever our user can; every result says so.

`PROCTOR_SANDBOX=none` forces the last mode; `PROCTOR_SANDBOX=require` refuses to run without
namespaces (each run is then a set-up error, graded `unscored`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

Mode = Literal["root", "userns", "none"]

NAMESPACES = ("net", "mount", "pid", "ipc", "uts")
_FLAGS = ("--net", "--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc")


@dataclass(frozen=True)
class Isolation:
    mode: Mode
    prefix: tuple[str, ...]
    """The command put before the launcher (`unshare …`), empty in mode "none"."""
    reason: str
    """Why this mode: what was tried and what failed."""
    required: bool = False

    @property
    def tag(self) -> str:
        """A few words for every result: which isolation was in force."""
        if self.mode == "root":
            return "namespaces net+mount(ro)+pid+ipc+uts, unprivileged uid, rlimits"
        if self.mode == "userns":
            return "user namespace with net+mount(ro)+pid+ipc+uts, no capabilities, rlimits"
        return "NO namespaces: rlimits, process group and clean environment only"


def _probe(cmd: list[str]) -> str | None:
    """None when `cmd` ran, else what went wrong."""
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if done.returncode != 0:
        return (done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}")[:300]
    return None


@functools.cache
def detect() -> Isolation:
    wanted = os.environ.get("PROCTOR_SANDBOX", "").strip().lower()
    required = wanted == "require"
    if wanted == "none":
        return Isolation("none", (), "PROCTOR_SANDBOX=none")
    unshare = shutil.which("unshare") or (
        "/usr/bin/unshare" if os.path.exists("/usr/bin/unshare") else None
    )
    if unshare is None:
        return Isolation("none", (), "no unshare command (util-linux) on PATH", required)
    if os.geteuid() == 0:
        prefix: tuple[str, ...] = (unshare, *_FLAGS)
        failed = _probe([*prefix, "true"])
        if failed is None:
            return Isolation("root", prefix, f"{unshare} works as root", required)
    else:
        failed = None
    userns = (unshare, "--user", "--map-root-user", *_FLAGS)
    failed_userns = _probe([*userns, "true"])
    if failed_userns is None:
        return Isolation("userns", userns, "unprivileged user namespaces work", required)
    why = "; ".join(f for f in (failed, failed_userns) if f)
    return Isolation("none", (), f"unshare failed: {why}", required)
