"""Clean-up that cannot fail: any tree a program builds is removed without recursion limits,
permissions or immutable flags stopping it; a proctor killed with SIGKILL takes its sandbox's
processes with it, and what it left (folders, cgroups) is swept by the next proctor process."""

from __future__ import annotations

import fcntl
import glob
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from proctor.sandbox import cgroups
from proctor.sandbox.cleanup import remove_tree, sweep_stale_folders

_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS, _IMMUTABLE = 0x80086601, 0x40086602, 0x10


def _deep(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY)
    for i in range(depth):  # by descriptor: the path is far beyond PATH_MAX
        os.mkdir("d", dir_fd=fd)
        if i % 500 == 0:
            with open(os.open(f"f{i}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
                f.write("x")
        below = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.close(fd)


def _immutable(path: Path) -> bool:
    """Set the immutable flag on `path`; False where the file system or we cannot."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            flags = struct.unpack("l", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("l", 0)))[0]
            fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("l", flags | _IMMUTABLE))
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def test_a_tree_of_3000_folders_with_locked_parts_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "work"
    top.mkdir()
    _deep(top, 3000)
    locked = top / "locked"
    locked.mkdir()
    (locked / "secret").write_text("x")
    (locked / "secret").chmod(0)
    locked.chmod(0)
    (top / "link").symlink_to("/etc/passwd")  # removed, never followed
    pinned = top / "pinned"
    pinned.write_text("x")
    has_flag = _immutable(pinned)
    remove_tree(top)
    assert not top.exists()
    assert Path("/etc/passwd").exists()
    if not has_flag:
        pytest.skip("immutable flags unavailable here (the rest was removed)")


def test_removing_what_is_not_there_is_fine(tmp_path: Path) -> None:
    remove_tree(tmp_path / "missing")
    single = tmp_path / "file"
    single.write_text("x")
    remove_tree(single)
    assert not single.exists()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_sweep_removes_folders_of_dead_proctor_processes_only(tmp_path: Path) -> None:
    dead = tmp_path / f"proctor-sandbox-{_dead_pid()}-abc"
    alive = tmp_path / f"proctor-sandbox-{os.getpid()}-def"
    legacy_old, legacy_new = tmp_path / "proctor-sandbox-q1w2e3", tmp_path / "proctor-sandbox-r4t5"
    other = tmp_path / "unrelated-folder"
    for folder in (dead, alive, legacy_old, legacy_new, other):
        folder.mkdir()
    _deep(dead, 1200)  # deeper than the recursion limit: no recursion in the sweep
    os.utime(legacy_old, (time.time() - 7200, time.time() - 7200))
    removed = sweep_stale_folders(str(tmp_path))
    assert sorted(removed) == sorted([str(dead), str(legacy_old)])
    assert alive.exists() and legacy_new.exists() and other.exists()


_HOLD = """
import sys, threading, time
sys.path.insert(0, {src!r})
from proctor.sandbox import Limits, run_python
threading.Thread(target=run_python, args=("import time\\ntime.sleep(60)", Limits(wall_s=50)),
                 daemon=True).start()
time.sleep(120)
"""


def _src() -> str:
    import proctor

    return str(Path(proctor.__file__).resolve().parent.parent)


def _wait_for(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


SYSTEM_PYTHON = "/usr/bin/python3"


def _python_for(mode: str) -> str:
    """Without namespaces, as root, the program runs as a fresh uid: it needs an interpreter
    every user can run (not one under /root), e.g. the system's."""
    if mode == "namespaces" or os.geteuid() != 0:
        return sys.executable
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("no system Python that an unprivileged uid can run")
    return SYSTEM_PYTHON


@pytest.mark.parametrize("mode", ["namespaces", "none"])
def test_sigkill_of_proctor_takes_the_sandbox_with_it_and_the_next_run_sweeps(mode: str) -> None:
    env = dict(os.environ)
    if mode == "none":
        env["PROCTOR_SANDBOX"] = "none"
    python = _python_for(mode)
    holder = subprocess.Popen([python, "-I", "-c", _HOLD.format(src=_src())], env=env)
    support = cgroups.support()
    groups = [str(p / f"proctor-sandbox-{holder.pid}-*") for p in support.parents]
    folders = os.path.join(tempfile.gettempdir(), f"proctor-sandbox-{holder.pid}-*")

    def its_processes() -> set[int]:
        return {
            int(p)
            for g in groups
            for f in glob.glob(g)
            for p in open(f"{f}/cgroup.procs").read().split()
        }

    try:
        started = _wait_for(lambda: its_processes() or (mode == "none" and glob.glob(folders)), 60)
        assert started, "the sandbox never started"
        time.sleep(0.5)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        if support.kind != "none":
            assert _wait_for(lambda: not its_processes(), 20), its_processes()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    # the next proctor process sweeps what the killed one left
    subprocess.run(
        [python, "-I", "-c", f"import sys; sys.path.insert(0, {_src()!r})\n"
         "from proctor.sandbox import run_python\nassert run_python('pass').passed"],
        env=env, check=True, timeout=120,
    )  # fmt: skip
    assert glob.glob(folders) == []
    assert [g for pattern in groups for g in glob.glob(pattern)] == []


_DEEP_REPLY = """
import sys
sys.path.insert(0, {src!r})
from proctor.sandbox import Limits, run_python
program = (
    "import os\\nfor _ in range(1500):\\n    os.mkdir('d')\\n    os.chdir('d')\\n"
    "open('x', 'w').write('x')\\nos.chmod('.', 0)\\n"
)
result = run_python(program, Limits(wall_s=60))
print(result.status, result.detail)
"""


def test_without_namespaces_a_deep_tree_in_the_work_folder_leaves_nothing() -> None:
    python = _python_for("none")
    env = {**os.environ, "PROCTOR_SANDBOX": "none"}
    done = subprocess.Popen(
        [python, "-I", "-c", _DEEP_REPLY.format(src=_src())], env=env,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    out, _ = done.communicate(timeout=120)
    assert done.returncode == 0 and out.startswith("passed"), out
    assert glob.glob(os.path.join(tempfile.gettempdir(), f"proctor-sandbox-{done.pid}-*")) == []
