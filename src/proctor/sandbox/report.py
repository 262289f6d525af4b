"""What isolation a sandboxed program actually gets here, measured by running one."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from proctor.sandbox import cgroups
from proctor.sandbox.isolation import detect
from proctor.sandbox.process import REFERENCE, Job, Limits, run_job

_PROBE = r"""
import ctypes, json, os, socket, stat
facts = {"uid": os.getuid(), "euid": os.geteuid()}
facts["interfaces"] = [name for _, name in socket.if_nameindex()]
facts["proc_mounted"] = os.path.exists("/proc/self")
facts["top_level"] = sorted(os.listdir("/"))
header = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
libc = ctypes.CDLL(None, use_errno=True)
facts["cap_eff"] = "%08x%08x" % (data[3], data[0]) if libc.capget(header, data) == 0 else "?"
def writable(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        os.unlink(path)
        return True
    except OSError:
        return False
cwd = os.getcwd()
facts["work"] = cwd
facts["writes_work"] = writable("probe")
facts["writes_outside_work"] = [p for p in ("/probe", "/usr/probe", "/etc/probe", "/tmp/probe",
    os.path.join(os.path.dirname(cwd), "probe")) if writable(p)]
def listable(path):
    try:
        os.listdir(path)
        return True
    except OSError:
        return False
facts["root_listable"] = listable("/root")
facts["home_exists"] = os.path.exists("/home")
facts["sockets"] = []
for folder in ("/", "/dev", "/etc", cwd):
    try:
        for entry in os.scandir(folder):
            if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                facts["sockets"].append(entry.path)
    except OSError:
        pass
vfs = os.statvfs(cwd)
facts["work_bytes"] = vfs.f_blocks * vfs.f_frsize
facts["work_files"] = vfs.f_files
facts["env_keys"] = sorted(os.environ)
print("PROBE" + json.dumps(facts))
"""

REFUSED_BY_THE_HOOK = (
    "frame access (sys._getframe, sys._current_frames, tb_frame, gi_frame, cr_frame, ag_frame),"
    " sys.settrace/setprofile, the garbage collector's object lists, ctypes, marshal and"
    " hand-made code objects, running programs (exec, spawn, system, Popen), fork (benchmark"
    " tests), signal handlers, new audit hooks, subinterpreters and the test modules of CPython"
)


@dataclass(frozen=True)
class IsolationReport:
    mode: str
    reason: str
    facts: dict[str, Any]
    limits: str
    cgroups: str
    """"v2", "v1" or "none": which per-solution accounting of memory and tasks was in force."""
    cgroups_reason: str

    def lines(self) -> list[str]:
        f = self.facts
        if not f:
            return [f"sandbox mode {self.mode} ({self.reason}); the probe did not run"]
        net = "no network (only " + (",".join(map(str, f["interfaces"])) or "no interface") + ")"
        if f["interfaces"] not in (["lo"], []):
            net = "NETWORK interfaces visible: " + ", ".join(map(str, f["interfaces"]))
        outside = f["writes_outside_work"]
        fs = (
            "the file system is read-only but for its work folder"
            if not outside and f["writes_work"]
            else "CAN WRITE outside its work folder: " + ", ".join(outside)
        )
        view = "sees only " + ", ".join(f["top_level"])
        if self.mode == "none":
            view = "sees the host's file system"
        user = f"uid {f['uid']}"
        if f["uid"] == 0:
            user = "root of its own user namespace" if self.mode == "userns" else "ROOT"
        caps = "no capabilities" if f["cap_eff"] == "0" * 16 else f"capabilities {f['cap_eff']}"
        home = "/root unlistable" if not f["root_listable"] else "/root LISTABLE"
        sockets = "no unix sockets" if not f["sockets"] else "SOCKETS: " + ", ".join(f["sockets"])
        memory = (
            f"memory and tasks per solution by a cgroup {self.cgroups} ({self.cgroups_reason})"
            if self.cgroups != "none"
            else "memory per solution counted by the launcher polling its PID namespace, tasks"
            f" by RLIMIT_NPROC in its user namespace (no cgroup: {self.cgroups_reason})"
        )
        work = (
            f"work folder a tmpfs of {f['work_bytes'] >> 20} MiB and {f['work_files']:,} files"
            if self.mode != "none"
            else "work folder on the host (files limited one by one only)"
        )
        return [
            f"sandbox mode {self.mode} ({self.reason})",
            f"{net}; {view}; {fs}; {home}; {sockets}; /proc "
            + ("MOUNTED" if f["proc_mounted"] else "not mounted"),
            f"runs as {user}, {caps}; environment of {len(f['env_keys'])} fixed variables",
            f"{memory}; {work}",
            f"audit hook refuses {REFUSED_BY_THE_HOOK}",
            f"limits {self.limits}",
        ]

    def summary(self) -> str:
        return "; ".join(self.lines())


@functools.cache
def isolation_report(limits: Limits | None = None) -> IsolationReport:
    """Run a probe program in the sandbox (without the audit hook, to see what the kernel
    alone holds) and report what it could see and do."""
    lim = limits or REFERENCE
    iso = detect()
    result = run_job(Job(_PROBE, audit=False), lim)
    facts: dict[str, Any] = {}
    for line in result.stdout.splitlines():
        if line.startswith("PROBE"):
            facts = json.loads(line[len("PROBE") :])
    support = cgroups.support()
    return IsolationReport(
        iso.mode, iso.reason, facts, lim.describe(), support.kind, support.reason
    )
