"""Which isolation this machine allows, found once per process by trying it.

Three modes, strongest first:
- "root": we are root; the program gets its own network (no interface but a down loopback),
  mount, PID, IPC and UTS namespaces, a new root that shows only the interpreter (see
  `launch.py`), and runs as a fresh unprivileged uid with no capabilities.
- "userns": we are not root but may create a user namespace: the same namespaces and new root;
  the program keeps our uid (root of its own user namespace) with every capability dropped.
- "none": no namespaces could be made: resource limits, a process group killed on timeout, a
  clean environment, a fresh uid when we are root. The program can reach the network and read
  and write wherever its user can; every result says so.

`PROCTOR_SANDBOX=none` forces the last mode; `PROCTOR_SANDBOX=require` refuses to run without
namespaces (each run is then a set-up error, graded `unscored`).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Literal

from proctor.sandbox import launch

Mode = Literal["root", "userns", "none"]

NAMESPACES = ("net", "mount", "pid", "ipc", "uts")
_PROBE_LIMITS = {
    "memory_bytes": 1 << 30, "disk_bytes": 1 << 20, "files": 64, "processes": 8,
    "open_files": 64, "cpu_s": 5,
}  # fmt: skip


@dataclass(frozen=True)
class Isolation:
    mode: Mode
    reason: str
    """Why this mode: what was tried and what failed."""
    required: bool = False

    @property
    def tag(self) -> str:
        """A few words for every result: which isolation was in force."""
        if self.mode == "root":
            return "namespaces net+mount+pid+ipc+uts, new root, unprivileged uid"
        if self.mode == "userns":
            return "user namespace with net+mount+pid+ipc+uts, new root, no capabilities"
        return "NO namespaces: rlimits, process group and clean environment only"


@functools.cache
def detect() -> Isolation:
    wanted = os.environ.get("PROCTOR_SANDBOX", "").strip().lower()
    required = wanted == "require"
    if wanted == "none":
        return Isolation("none", "PROCTOR_SANDBOX=none")
    tried = []
    if os.geteuid() == 0:
        failed = launch.probe("root", _PROBE_LIMITS)
        if failed is None:
            return Isolation("root", "namespaces and a new root work as root", required)
        tried.append(f"as root: {failed}")
    failed = launch.probe("userns", _PROBE_LIMITS)
    if failed is None:
        return Isolation("userns", "unprivileged user namespaces work", required)
    tried.append(f"user namespace: {failed}")
    return Isolation("none", "namespaces failed: " + "; ".join(tried), required)
