"""Runs inside the sandbox's namespaces, as their first process; standard library only.

Started by `proctor.sandbox.process` as `python -I -S -B _launcher.py CONFIG` (under `unshare`
when namespaces are available). It readies the mounts (every mount read-only except the
throwaway work folder, home folders hidden, the interpreter's prefix bound where the sandbox user
can read it), says on its status pipe that the set-up held, then forks the program: limits set,
privileges and capabilities dropped, no new privileges, and waits for it. Its own exit status is
the program's (128 + signal when killed). Being PID 1 of the new PID namespace, its exit takes
every process the program left behind with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import resource
import sys
from typing import Any

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
_KEEP = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    pass


def _enc(text: str | None) -> bytes | None:
    return text.encode() if text is not None else None


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    if (
        _libc.mount(_enc(source), _enc(target), _enc(fstype), ctypes.c_ulong(flags), _enc(data))
        != 0
    ):
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _mount_points() -> list[str]:
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        points = [line.split()[4] for line in f if line.strip()]
    unescape = re.compile(r"\\([0-7]{3})")
    seen: dict[str, None] = {}
    for p in points:
        seen.setdefault(unescape.sub(lambda m: chr(int(m.group(1), 8)), p), None)
    return list(seen)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _remount_read_only(keep_writable: list[str]) -> tuple[int, list[str]]:
    """Every mount read-only except `keep_writable` and /proc; the flags a mount already has
    (nosuid, nodev, …) are kept, since a user namespace may not clear them."""
    done, failed = 0, []
    for point in _mount_points():
        if any(_inside(point, k) for k in keep_writable) or _inside(point, "/proc"):
            continue
        try:
            flags = os.statvfs(point).f_flag
        except OSError:
            continue  # hidden under another mount
        extra = 0
        for st, ms in _KEEP:
            if flags & st:
                extra |= ms
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | extra)
            done += 1
        except OSError as e:
            failed.append(f"{point} ({e.strerror})")
    return done, failed


def _setup_mounts(cfg: dict[str, Any]) -> list[str]:
    notes = []
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    work = str(cfg["work"])
    bound_python = cfg.get("python_mount")
    if bound_python:
        _mount(str(cfg["python_prefix"]), str(bound_python), None, MS_BIND | MS_REC)
    _mount(work, work, None, MS_BIND)
    base = os.path.dirname(work)
    for folder in cfg.get("mask", []):
        folder = str(folder)
        if not os.path.isdir(folder) or _inside(base, folder):
            continue
        try:
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
            notes.append(f"hid {folder}")
        except OSError as e:
            notes.append(f"could not hide {folder} ({e.strerror})")
    done, failed = _remount_read_only([work])
    if failed and any(f.startswith("/ (") for f in failed):
        raise SetupError(f"could not make / read-only: {failed}")
    probe = os.path.join(base, ".write-probe")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError:
        pass
    else:
        os.close(fd)
        os.unlink(probe)
        raise SetupError("the file system is still writable after the read-only remount")
    notes.append(f"{done} mounts read-only" + (f", {len(failed)} not: {failed}" if failed else ""))
    return notes


def _drop_bounding_set() -> None:
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)


def _clear_capabilities() -> None:
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        raise SetupError(f"capset: {os.strerror(ctypes.get_errno())}")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


def _child(cfg: dict[str, Any], status_fd: int) -> None:
    """In the forked child: never returns. The status pipe closes at exec (close-on-exec), so the
    program can never write to it; a failure before exec is reported on it as a set-up error."""
    try:
        os.set_inheritable(status_fd, False)
        limits = cfg["limits"]
        cpu = int(limits["cpu_s"])
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        _limit(resource.RLIMIT_AS, int(limits["memory_bytes"]))
        _limit(resource.RLIMIT_FSIZE, int(limits["file_bytes"]))
        _limit(resource.RLIMIT_NOFILE, int(limits["open_files"]))
        _limit(resource.RLIMIT_CORE, 0)
        if os.geteuid() == 0:
            _drop_bounding_set()
        uid = cfg.get("uid")
        if isinstance(uid, int):
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        _clear_capabilities()
        _limit(resource.RLIMIT_NPROC, int(limits["processes"]))
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise SetupError("no_new_privs refused")
        os.chdir(str(cfg["work"]))
        argv = [str(a) for a in cfg["argv"]]
        env = {str(k): str(v) for k, v in cfg["env"].items()}
        os.execve(argv[0], argv, env)
    except BaseException as e:  # anything at all: report it, then die without cleanup
        with contextlib.suppress(OSError):
            os.write(status_fd, ("setup-failed " + json.dumps(f"child: {e!r}") + "\n").encode())
        os._exit(126)


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    status_fd = int(cfg["status_fd"])
    notes: list[str] = []
    try:
        if cfg.get("mounts"):
            notes = _setup_mounts(cfg)
    except BaseException as e:
        os.write(status_fd, ("setup-failed " + json.dumps(str(e)) + "\n").encode())
        os._exit(125)
    os.write(status_fd, ("ready " + json.dumps(notes) + "\n").encode())
    pid = os.fork()
    if pid == 0:
        _child(cfg, status_fd)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    os.write(status_fd, f"exit {code}\n".encode())
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
