"""One control group per solution: its memory (the whole process tree, page cache and tmpfs
included) and its number of tasks are limited together, its peak is read back, and every
process in it is killed at the end.

cgroup v2 is used where its memory and pids controllers can be had below our own group; else
the v1 memory and pids hierarchies where they are mounted and writable (root on a host with the
hybrid layout); else none, and the launcher counts memory itself (see `_launcher.py`).
`support()` says which, and why. Groups are named `proctor-sandbox-<pid>-<n>`; groups of a
process that is gone are swept on first use.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from proctor._util.processes import alive

ROOT = Path("/sys/fs/cgroup")
PREFIX = "proctor-sandbox-"
_counter = itertools.count()
_NAME = re.compile(rf"^{PREFIX}(\d+)-\d+$")


@dataclass(frozen=True)
class Support:
    kind: str
    """"v2", "v1" or "none"."""
    parents: tuple[Path, ...]
    """Where solution groups are made: one folder for v2; the memory and pids folders for v1."""
    reason: str


def _own_paths() -> dict[str, str]:
    """Our cgroup per hierarchy, from /proc/self/cgroup: "" for v2, controller names for v1."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                paths[c] = path
    return paths


def _try_v2(own: dict[str, str]) -> Support | None:
    base = ROOT if (ROOT / "cgroup.controllers").exists() else ROOT / "unified"
    if not (base / "cgroup.controllers").exists() or "" not in own:
        return None
    parent = base / own[""].lstrip("/")
    probe = parent / f"{PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir()
    except OSError as e:
        return Support("none", (), f"cgroup v2 at {base} is not writable here ({e.strerror})")
    try:
        controllers = set((probe / "cgroup.controllers").read_text().split())
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
    if {"memory", "pids"} <= controllers:
        return Support("v2", (parent,), f"cgroup v2 below {parent}")
    return Support(
        "none", (), f"cgroup v2 at {base} offers {sorted(controllers) or 'no'} controllers"
        " to our group, not memory and pids"
    )  # fmt: skip


def _try_v1(own: dict[str, str]) -> Support | None:
    parents = []
    for controller in ("memory", "pids"):
        folder = ROOT / controller
        if not (folder / "cgroup.procs").exists() or controller not in own:
            return None
        parent = folder / own[controller].lstrip("/")
        if not os.access(parent, os.W_OK):
            return Support("none", (), f"cgroup v1 {controller} at {parent} is not writable")
        parents.append(parent)
    return Support("v1", tuple(parents), "cgroup v1 memory and pids below " + ", ".join(
        str(p) for p in parents
    ))  # fmt: skip


@functools.cache
def support() -> Support:
    if os.environ.get("PROCTOR_SANDBOX_CGROUPS", "").strip().lower() == "none":
        return Support("none", (), "PROCTOR_SANDBOX_CGROUPS=none")
    own = _own_paths()
    v2 = _try_v2(own)
    if v2 is not None and v2.kind == "v2":
        return v2
    v1 = _try_v1(own)
    if v1 is not None and v1.kind == "v1":
        sweep(v1)
        return v1
    if v2 is not None:
        sweep(v2)
    why = [s.reason for s in (v2, v1) if s is not None] or ["no cgroup file system here"]
    return Support("none", (), "; ".join(why))


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _field(text: str, key: str) -> int:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key and parts[1].isdigit():
            return int(parts[1])
    return 0


@dataclass
class SolutionGroup:
    kind: str
    folders: tuple[Path, ...]

    @property
    def procs_files(self) -> list[str]:
        return [str(f / "cgroup.procs") for f in self.folders]

    def peak_memory(self) -> int | None:
        name = "memory.peak" if self.kind == "v2" else "memory.max_usage_in_bytes"
        text = _read(self.folders[0] / name).strip()
        return int(text) if text.isdigit() else None

    def oom_kills(self) -> int:
        if self.kind == "v2":
            return _field(_read(self.folders[0] / "memory.events"), "oom_kill")
        return _field(_read(self.folders[0] / "memory.oom_control"), "oom_kill")

    def hit_process_limit(self) -> bool:
        return _field(_read(self.folders[-1] / "pids.events"), "max") > 0

    def kill(self) -> None:
        """SIGKILL every process in the group, until none is left (bounded)."""
        if self.kind == "v2":
            with contextlib.suppress(OSError):
                _write(self.folders[0] / "cgroup.kill", "1")
        for _ in range(200):
            pids = {int(p) for f in self.folders for p in _read(f / "cgroup.procs").split()}
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def remove(self) -> None:
        self.kill()
        for folder in self.folders:
            for _ in range(200):  # a killed task leaves its group a moment later
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)


def create(memory_bytes: int, processes: int) -> SolutionGroup | None:
    """A fresh group with these limits, or None where cgroups cannot be used (see `support`)."""
    s = support()
    if s.kind == "none":
        return None
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
    folders = tuple(p / name for p in s.parents)
    group = SolutionGroup(s.kind, folders)
    try:
        for f in folders:
            f.mkdir()
        if s.kind == "v2":
            _write(folders[0] / "memory.max", str(memory_bytes))
            with contextlib.suppress(OSError):  # absent without swap accounting
                _write(folders[0] / "memory.swap.max", "0")
            with contextlib.suppress(OSError):  # an OOM kill takes the whole tree
                _write(folders[0] / "memory.oom.group", "1")
            _write(folders[0] / "pids.max", str(processes))
        else:
            _write(folders[0] / "memory.limit_in_bytes", str(memory_bytes))
            with contextlib.suppress(OSError):
                _write(folders[0] / "memory.memsw.limit_in_bytes", str(memory_bytes))
            _write(folders[1] / "pids.max", str(processes))
    except OSError:
        group.remove()
        return None
    return group


def sweep(s: Support | None = None) -> int:
    """Remove the groups of proctor processes that are gone; how many were removed."""
    s = s or support()
    removed = 0
    for parent in s.parents:
        with contextlib.suppress(OSError):
            for entry in parent.iterdir():
                m = _NAME.match(entry.name)
                if m is None or alive(int(m.group(1))):
                    continue
                SolutionGroup(s.kind, (entry,)).remove()
                removed += not entry.exists()
    return removed
