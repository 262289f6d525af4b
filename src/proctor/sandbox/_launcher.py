"""Starts one sandboxed program; runs as `python -I -S -B _launcher.py`, standard library only.

Started by `proctor.sandbox.process` with its configuration as a marshal frame on fd 0 (the
harness's job follows on the same pipe and is left for the harness). It first arranges to die
with proctor (`PR_SET_PDEATHSIG`), then, in mode "root" or "userns":

- unshares the mount, PID, network, IPC and UTS namespaces (and, in mode "userns", the user
  namespace, mapping our uid to its root) and forks the namespace's init, PID 1;
- init builds the program's whole view of the host: a new root on a small tmpfs holding
  read-only binds of /usr, the interpreter's installation and two files of /etc, five device
  nodes and /work, a tmpfs of fixed size and inode count (nosuid, nodev, noexec); no /proc, /sys,
  /tmp, /run, /home, /root, no other results store and no unix socket. The old root is detached
  (`pivot_root`, then a lazy unmount), and the new root is remounted read-only;
- init forks the harness: it joins the solution's cgroups (file descriptors opened before the
  pivot), gets its rlimits, drops every privilege (a fresh uid as root; every capability, the
  bounding set and `no_new_privs` in both modes) and execs the interpreter;
- init reaps, counts the memory of the whole tree where no cgroup does (polling /proc of its own
  PID namespace, mounted where the program cannot reach it), and when the harness ends kills
  whatever is left: its own end takes the namespace with it.

In mode "none" the launcher forks the harness itself, in a work folder on the host.

Status lines on the status pipe: `ready NOTES`, `child PID`, `setup-failed WHY`,
`memory-limit BYTES`, `peak BYTES`, `exit CODE`.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import marshal
import os
import resource
import signal
import time
from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_MOVE, MS_REC = 32, 1024, 2048, 4096, 8192, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
MNT_DETACH = 2
_KEEP = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
"""Flags a mount already has are kept on remount: a user namespace may not clear them."""
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
DEVICES = ("null", "zero", "full", "random", "urandom")
PAGE = os.sysconf("SC_PAGE_SIZE")

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    pass


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _enc(text: str | None) -> bytes | None:
    return text.encode() if text is not None else None


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    rc = _libc.mount(_enc(source), _enc(target), _enc(fstype), ctypes.c_ulong(flags), _enc(data))
    _check(rc, f"mount {target}")


def _prctl(option: int, arg: int) -> int:
    return int(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0))


def _status(fd: int, line: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, (" ".join(line.split("\n")) + "\n").encode(errors="replace"))


def _read_frame(fd: int) -> bytes:
    """One `<length>\\n<bytes>` frame, read byte-exactly: what follows is someone else's."""
    header = b""
    while not header.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            raise SetupError("the configuration was cut short")
        header += chunk
    size, data = int(header), b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise SetupError("the configuration was cut short")
        data += chunk
    return data


def _write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


# -- the new root ---------------------------------------------------------------------------------


def _keep_flags(path: str) -> int:
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _KEEP if flags & st)


def _bind(source: str, target: str, *, read_only: bool, is_dir: bool) -> None:
    if is_dir:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    _mount(source, target, None, MS_BIND | (MS_REC if is_dir else 0))
    if read_only:
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | _keep_flags(source)
        _mount(None, target, None, flags)


def _mount_points_under(root: str) -> list[str]:
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        points = [line.split()[4] for line in f if line.strip()]
    return [p for p in points if p.startswith(root.rstrip("/") + "/")]


def _pivot(root: str) -> None:
    old = os.path.join(root, ".old")
    os.mkdir(old)
    number = _PIVOT_ROOT.get(os.uname().machine)
    if number is not None and _libc.syscall(number, _enc(root), _enc(old)) == 0:
        os.chdir("/")
        _check(_libc.umount2(b"/.old", MNT_DETACH), "detach the old root")
        os.rmdir("/.old")
        return
    # no pivot_root here: move the new root over / and chroot into it (as switch_root does)
    os.rmdir(old)
    os.chdir(root)
    _mount(".", "/", None, MS_MOVE)
    os.chroot(".")
    os.chdir("/")


def _new_root(cfg: dict[str, Any]) -> tuple[list[str], int | None]:
    """Build the program's view of the host and move into it; returns notes and, when memory
    is counted by polling, a descriptor of this namespace's /proc (unreachable by path)."""
    notes: list[str] = []
    limits = cfg["limits"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = str(cfg["root_mount"])
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    made: list[str] = []
    for source in cfg["bind_dirs"]:
        target = root + source
        parent = os.path.dirname(target)
        while parent != root and not os.path.exists(parent):
            made.append(parent)
            parent = os.path.dirname(parent)
        _bind(source, target, read_only=True, is_dir=True)
    for source, inside in cfg["bind_files"]:
        if not os.path.exists(root + os.path.dirname(inside)):
            made.append(root + os.path.dirname(inside))
        _bind(source, root + inside, read_only=True, is_dir=False)
    for link, target in cfg["links"]:
        os.symlink(target, root + link)
    os.mkdir(root + "/dev", 0o755)
    for name in DEVICES:
        _bind("/dev/" + name, f"{root}/dev/{name}", read_only=False, is_dir=False)
    work = root + "/work"
    os.mkdir(work, 0o700)
    owner = cfg.get("uid")
    options = f"size={int(limits['disk_bytes'])},nr_inodes={int(limits['files'])},mode=700"
    if isinstance(owner, int):
        options += f",uid={owner},gid={owner}"
    _mount("tmpfs", work, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)
    # what a recursive bind brought along is made read-only too
    for point in _mount_points_under(root):
        bound = {root + s for s in cfg["bind_dirs"]}
        if point.startswith((work, root + "/dev/")) or point in bound:
            continue
        with contextlib.suppress(OSError):
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _keep_flags(point))
    proc_fd = None
    if cfg.get("account_memory"):
        os.mkdir(root + "/.proc", 0o700)
        _mount("proc", root + "/.proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        proc_fd = os.open(root + "/.proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for folder in made:  # traversable, not listable: /root holds nothing but the interpreter
        os.chmod(folder, 0o111)
    _pivot(root)
    if proc_fd is not None:
        _check(_libc.umount2(b"/.proc", MNT_DETACH), "detach /proc")
        os.rmdir("/.proc")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for probe in ("/.write-probe", "/usr/.write-probe"):
        try:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            continue
        raise SetupError(f"{probe} is writable after the read-only remount")
    notes.append("new root: " + ", ".join([*cfg["bind_dirs"], "/dev (5 nodes)", "/work (tmpfs)"]))
    return notes, proc_fd


# -- the program --------------------------------------------------------------------------------


def _drop_bounding_set() -> None:
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0:
            break
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)


def _clear_capabilities() -> None:
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        raise SetupError(f"capset: {os.strerror(ctypes.get_errno())}")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


def _harness(cfg: dict[str, Any], group_fds: list[int], status_fd: int) -> None:
    """In the forked harness: never returns. A failure before exec is a set-up error."""
    try:
        # the status pipe stays open only to report a failed exec (close-on-exec), high up
        status_fd = fcntl.fcntl(status_fd, fcntl.F_DUPFD_CLOEXEC, 512)
        for fd in group_fds:  # while still privileged: join the solution's cgroups
            os.write(fd, b"0")
        limits = cfg["limits"]
        cpu = int(limits["cpu_s"])
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        _limit(resource.RLIMIT_AS, int(limits["memory_bytes"]))
        _limit(resource.RLIMIT_FSIZE, int(limits["disk_bytes"]))
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
        if cfg.get("limit_processes"):
            _limit(resource.RLIMIT_NPROC, int(limits["processes"]))
        if _prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
            raise SetupError("no_new_privs refused")
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setresuid, which clears it
        os.chdir(str(cfg["work"]))
        verdict_fd = int(cfg["verdict_fd"])
        if verdict_fd != 3:
            os.dup2(verdict_fd, 3)
        os.closerange(4, status_fd)
        os.closerange(status_fd + 1, 1 << 16)
        argv = [str(a) for a in cfg["argv"]]
        env = {str(k): str(v) for k, v in cfg["env"].items()}
        try:
            os.execve(argv[0], argv, env)
        except PermissionError:
            if isinstance(uid, int) and cfg["mode"] == "none":
                raise SetupError(
                    f"the interpreter {argv[0]} cannot be run by an unprivileged uid (we are root"
                    " without namespaces): put Python where every user can read it, or allow"
                    " namespaces"
                ) from None
            raise
    except BaseException as e:  # anything at all: report it, then die without cleanup
        _status(status_fd, "setup-failed " + f"harness: {e!r}")
        os._exit(126)


def _tree_rss(proc_fd: int | None, top: int) -> int:
    """Resident memory of the program's processes: every process of this PID namespace but its
    init (with `proc_fd`), else `top` and its descendants found through /proc."""
    total = 0
    if proc_fd is not None:
        names = [n for n in os.listdir(proc_fd) if n.isdigit() and n != "1"]
        for name in names:
            with contextlib.suppress(OSError, ValueError, IndexError):
                fd = os.open(f"{name}/statm", os.O_RDONLY, dir_fd=proc_fd)
                try:
                    total += int(os.read(fd, 256).split()[1]) * PAGE
                finally:
                    os.close(fd)
        return total
    todo, seen = [top], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
                todo.extend(int(c) for c in f.read().split())
    return total


def _watch(
    child: int, cfg: dict[str, Any], status_fd: int, proc_fd: int | None, reaps_all: bool
) -> int:
    """Wait for the harness (reaping every orphan when PID 1); count memory when asked. Returns
    the harness's exit code (negative: the signal that ended it)."""
    limit = int(cfg["limits"]["memory_bytes"])
    counting = bool(cfg.get("account_memory"))
    peak, over = 0, False
    while True:
        flags = os.WNOHANG if counting else 0
        try:
            pid, status = os.waitpid(-1 if reaps_all else child, flags)
        except ChildProcessError:
            return -signal.SIGKILL
        except InterruptedError:
            continue
        if pid == child:
            if counting:
                _status(status_fd, f"peak {peak}")
            return -signal.SIGKILL if over else os.waitstatus_to_exitcode(status)
        if pid == 0:
            used = _tree_rss(proc_fd, child)
            peak = max(peak, used)
            if used > limit and not over:
                over = True
                _status(status_fd, f"memory-limit {used}")
                with contextlib.suppress(OSError):
                    os.kill(-1 if reaps_all else child, signal.SIGKILL)
            time.sleep(0.02)


def main() -> None:
    cfg: dict[str, Any] = marshal.loads(_read_frame(0))
    status_fd = int(cfg["status_fd"])
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != int(cfg["parent_pid"]):
            os._exit(125)  # proctor died before we could arrange to die with it
        group_fds = [os.open(p, os.O_WRONLY | os.O_CLOEXEC) for p in cfg.get("cgroup_procs", [])]
        mode = cfg["mode"]
        if mode != "none":
            flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
            uid, gid = os.getuid(), os.getgid()
            if mode == "userns":
                flags |= CLONE_NEWUSER
            _check(_libc.unshare(flags), "unshare")
            if mode == "userns":
                _write_file("/proc/self/setgroups", "deny")
                _write_file("/proc/self/uid_map", f"0 {uid} 1\n")
                _write_file("/proc/self/gid_map", f"0 {gid} 1\n")
    except BaseException as e:
        _status(status_fd, "setup-failed " + str(e))
        os._exit(125)
    if mode == "none":
        _status(status_fd, "ready []")
        if cfg.get("probe"):
            os._exit(0)
        code = _fork_harness(cfg, group_fds, status_fd, None, is_init=False)
        os._exit(code if code >= 0 else 128 - code)
    init = os.fork()
    if init == 0:
        _init(cfg, group_fds, status_fd)
    for fd in (0, 1, 2, int(cfg["verdict_fd"]), status_fd, *group_fds):
        with contextlib.suppress(OSError):
            os.close(fd)
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def _init(cfg: dict[str, Any], group_fds: list[int], status_fd: int) -> None:
    """PID 1 of the new namespaces: never returns."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        notes, proc_fd = _new_root(cfg)
    except BaseException as e:
        _status(status_fd, "setup-failed " + str(e))
        os._exit(125)
    _status(status_fd, "ready " + "; ".join(notes))
    if cfg.get("probe"):
        os._exit(0)
    code = _fork_harness(cfg, group_fds, status_fd, proc_fd, is_init=True)
    with contextlib.suppress(OSError):
        os.kill(-1, signal.SIGKILL)  # every process the program left, as PID 1 may
    os._exit(code if code >= 0 else 128 - code)


def _fork_harness(
    cfg: dict[str, Any],
    group_fds: list[int],
    status_fd: int,
    proc_fd: int | None,
    *,
    is_init: bool,
) -> int:
    """Fork the harness, say its pid, keep only the status pipe, and wait for it (as PID 1:
    reaping every orphan); its exit code (negative: the signal that ended it)."""
    child = os.fork()
    if child == 0:
        _harness(cfg, group_fds, status_fd)
    _status(status_fd, f"child {child}")
    for fd in (0, 1, 2, int(cfg["verdict_fd"]), *group_fds) if is_init else group_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    code = _watch(child, cfg, status_fd, proc_fd, reaps_all=is_init)
    _status(status_fd, f"exit {code}")
    return code


if __name__ == "__main__":
    main()
