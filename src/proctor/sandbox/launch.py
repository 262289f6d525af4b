"""What the launcher is given: the interpreter the program runs with, the few parts of the host
its new root shows, the harness's command line and environment; and how it is started.

The new root shows, read-only: /usr, the interpreter's installation (wherever it is, e.g. under
/root/.pyenv: only that folder, its parents traversable and unlistable), the /lib folders (as the
host's symlinks where they are symlinks), /etc/ld.so.cache and /etc/localtime. Nothing that
holds results stores, homes, other sandboxes or sockets (/tmp, /run, /var, /home, /root, /proc,
/sys) is bound.
"""

from __future__ import annotations

import functools
import glob
import marshal
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LAUNCHER = Path(__file__).with_name("_launcher.py")
HARNESS = Path(__file__).with_name("_harness.py")
WORK = "/work"


@functools.cache
def interpreter() -> tuple[str, str]:
    """The base interpreter (not a virtual environment's) and its installation prefix."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


@functools.cache
def host_view() -> dict[str, Any]:
    """The binds and links of the new root (see the module docstring)."""
    exe, prefix = interpreter()
    dirs: list[str] = []
    links: list[tuple[str, str]] = []
    if os.path.isdir("/usr"):
        dirs.append("/usr")
    for top in ("/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"):
        if os.path.islink(top):
            links.append((top, os.readlink(top)))
        elif os.path.isdir(top) and top.startswith("/lib"):
            dirs.append(top)
    for folder in (prefix, os.path.dirname(exe)):
        if not _under(folder, dirs):
            dirs.append(folder)
    files = [("/etc/ld.so.cache", "/etc/ld.so.cache")] if os.path.isfile("/etc/ld.so.cache") else []
    if os.path.exists("/etc/localtime"):
        files.append((os.path.realpath("/etc/localtime"), "/etc/localtime"))
    return {"bind_dirs": dirs, "bind_files": files, "links": links}


@functools.cache
def harness_argv() -> list[str]:
    exe, _ = interpreter()
    source = HARNESS.read_text(encoding="utf-8")
    bootstrap = (
        f"exec(compile({source!r}, '<proctor-harness>', 'exec', dont_inherit=True),"
        " {'__name__': '__proctor_harness__', '__builtins__': __builtins__.__dict__.copy()})"
    )
    # -P: neither the work folder nor anything else the program writes is on sys.path
    return [exe, "-s", "-S", "-B", "-P", "-c", bootstrap]


def harness_env(work: str) -> dict[str, str]:
    _, prefix = interpreter()
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": work,
        "TMPDIR": work,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    if glob.glob(os.path.join(prefix, "lib", "libpython*.so*")):
        env["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib")
    return env


def launcher_config(
    mode: str, limits: dict[str, Any], *, status_fd: int, verdict_fd: int, **extra: Any
) -> dict[str, Any]:
    work = WORK if mode != "none" else str(extra.pop("work_host"))
    return {
        "mode": mode,
        "parent_pid": os.getpid(),
        "status_fd": status_fd,
        "verdict_fd": verdict_fd,
        "root_mount": tempfile.gettempdir(),
        "work": work,
        "limits": limits,
        "argv": harness_argv(),
        "env": harness_env(work),
        **host_view(),
        **extra,
    }


def frame(data: bytes) -> bytes:
    return f"{len(data)}\n".encode() + data


def start(config: dict[str, Any], status_w: int, verdict_w: int) -> subprocess.Popen[bytes]:
    """The launcher, in a session of its own, with pipes on 0, 1 and 2."""
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-B", str(LAUNCHER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd="/",
        start_new_session=True,
        pass_fds=tuple(fd for fd in (status_w, verdict_w) if fd >= 0),
    )


def probe(mode: str, limits: dict[str, Any]) -> str | None:
    """None when the launcher can set up `mode` here (namespaces and the new root), else why not."""
    status_r, status_w = os.pipe()
    config = launcher_config(
        mode, limits, status_fd=status_w, verdict_fd=-1, probe=True, account_memory=True
    )
    try:
        proc = start(config, status_w, -1)
    except OSError as e:
        os.close(status_r)
        return str(e)
    finally:
        os.close(status_w)
    try:
        _, err = proc.communicate(frame(marshal.dumps(config)), timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        proc.kill()
        proc.wait()
        os.close(status_r)
        return f"the probe did not finish: {e}"
    deadline = time.monotonic() + 5
    out = b""
    os.set_blocking(status_r, False)
    while time.monotonic() < deadline:
        try:
            chunk = os.read(status_r, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        out += chunk
    os.close(status_r)
    lines = out.decode(errors="replace").splitlines()
    failed = next((line for line in lines if line.startswith("setup-failed")), None)
    if failed is not None:
        return failed[len("setup-failed ") :][:300]
    if proc.returncode != 0 or not any(line.startswith("ready") for line in lines):
        text = err.decode(errors="replace").strip()[-300:]
        return f"the launcher exited with {proc.returncode}" + (f": {text}" if text else "")
    return None
