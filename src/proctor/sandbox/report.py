"""What isolation a sandboxed program actually gets here, measured by running one."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from proctor.sandbox.isolation import detect
from proctor.sandbox.process import Limits, run_python

_PROBE = r"""
import json, os, socket
facts = {"uid": os.getuid(), "euid": os.geteuid()}
facts["interfaces"] = [name for _, name in socket.if_nameindex()]
facts["visible_pids"] = sum(1 for p in os.listdir("/proc") if p.isdigit())
with open("/proc/self/status") as f:
    caps = [l.split()[1] for l in f if l.startswith("CapEff")]
facts["cap_eff"] = caps[0] if caps else "?"
def writable(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        os.unlink(path)
        return True
    except OSError:
        return False
facts["writes_outside_work"] = writable(os.path.join(os.path.dirname(os.getcwd()), "probe"))
facts["writes_tmp"] = writable("/tmp/proctor-sandbox-probe")
facts["writes_work"] = writable("probe")
try:
    facts["root_home_entries"] = len(os.listdir("/root"))
except OSError:
    facts["root_home_entries"] = None
facts["env_keys"] = sorted(os.environ)
print("PROBE" + json.dumps(facts))
"""


@dataclass(frozen=True)
class IsolationReport:
    mode: str
    reason: str
    facts: dict[str, Any]
    limits: str

    def summary(self) -> str:
        f = self.facts
        if not f:
            return f"sandbox mode {self.mode} ({self.reason}); the probe did not run"
        net = "no network (only " + ",".join(map(str, f["interfaces"])) + ")"
        if f["interfaces"] not in (["lo"], []):
            net = "network interfaces visible: " + ", ".join(map(str, f["interfaces"]))
        fs = (
            "file system read-only except the work folder"
            if not f["writes_outside_work"] and not f["writes_tmp"]
            else "CAN WRITE outside its work folder"
        )
        user = f"uid {f['uid']}"
        if f["uid"] == 0:
            user = (
                "root of its own user namespace (our uid outside)"
                if self.mode == "userns"
                else "ROOT"
            )
        caps = (
            "no capabilities"
            if f["cap_eff"] == "0000000000000000"
            else f"capabilities {f['cap_eff']}"
        )
        home = {None: "/root unreadable", 0: "/root hidden (empty)"}.get(
            f["root_home_entries"], "/root READABLE"
        )
        return (
            f"sandbox mode {self.mode}: {net}; {fs}; {f['visible_pids']} processes visible;"
            f" runs as {user}, {caps}; {home}; environment {len(f['env_keys'])} fixed variables;"
            f" limits {self.limits}"
        )


@functools.cache
def isolation_report(limits: Limits | None = None) -> IsolationReport:
    """Run a probe program in the sandbox and report what it could see and do."""
    lim = limits or Limits()
    iso = detect()
    result = run_python(_PROBE, lim)
    facts: dict[str, Any] = {}
    for line in result.stdout.splitlines():
        if line.startswith("PROBE"):
            facts = json.loads(line[len("PROBE") :])
    return IsolationReport(iso.mode, iso.reason, facts, lim.describe())
