"""A two-node Ray cluster on this machine, set up as docs/ray.md says: the head from
the project's virtualenv, a second node from a virtualenv that holds only Ray (and its [default]
extra) of the same version, one auth token for all. Only what two nodes sharing one machine need
is added (free ports, a temp dir of its own, the second node's custom resource).

Every process it starts lives in one of two sessions (`start_new_session`), and `stop` ends
every process of those sessions, Ray's workers included: never `ray stop`, which would stop
every Ray on the machine (other people's tests run here too)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import ray

RAY_VERSION = ray.__version__
NODE_RESOURCE = "proctor_test_node"
CACHE = Path(os.environ.get("PROCTOR_RAY_NODE_CACHE", Path.home() / ".cache" / "proctor"))
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
KEY_VARS = ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def node_venv() -> Path:
    """docs/ray.md's node: `python3.11 -m venv ray-node && ray-node/bin/pip install
    'ray[default]==VERSION'`, built once per Python and Ray version and kept in the cache (pip's
    own cache makes a rebuild quick); a build cut short is started again."""
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    venv = CACHE / f"ray-node-py{py}-ray{RAY_VERSION}"
    done = venv / ".proctor-complete"
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "ray-node.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, whoever else runs the tests
        if done.exists():
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
        pip = [str(venv / "bin" / "pip"), "install", "--quiet", f"ray[default]=={RAY_VERSION}"]
        subprocess.run(pip, check=True, timeout=900)
        done.write_text(RAY_VERSION)
    return venv


@dataclass
class Cluster:
    address: str
    env: dict[str, str]
    """The environment a driver needs (the token, no proxy, no key)."""
    temp_dirs: list[Path]
    """One per node: a node builds its runtime_env there (two in one folder would collide)."""
    node_venv: Path
    sessions: list[int] = field(default_factory=list)
    node_session: int = 0

    def raylet_of_node(self) -> int:
        """The second node's raylet (a process of its session)."""
        for pid in _session_pids(self.node_session):
            with contextlib.suppress(OSError):
                exe = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
                if exe.endswith(b"/raylet"):
                    return pid
        raise AssertionError("the second node has no raylet")

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for sid in self.sessions:
                for pid in _session_pids(sid):
                    with contextlib.suppress(OSError):
                        os.kill(pid, sig)
            deadline = time.monotonic() + 2  # then SIGKILL: nothing here needs a clean exit
            while time.monotonic() < deadline and any(_session_pids(s) for s in self.sessions):
                time.sleep(0.2)
        left = [p for s in self.sessions for p in _session_pids(s)]
        for temp_dir in self.temp_dirs:
            shutil.rmtree(temp_dir, ignore_errors=True)
        assert not left, f"Ray processes left running: {left}"


def _session_pids(sid: int) -> list[int]:
    """Live processes of session `sid` (zombies are their parent's to reap)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                pids.append(int(entry.name))
    return pids


def _ports(head: bool) -> list[str]:
    ports = [
        f"--dashboard-agent-listen-port={free_port()}",
        f"--dashboard-agent-grpc-port={free_port()}",
        f"--metrics-export-port={free_port()}",
        f"--runtime-env-agent-port={free_port()}",
    ]
    return [*ports, f"--dashboard-port={free_port()}"] if head else ports


def start(project_bin: Path, logs: Path) -> Cluster:
    """Head from the project's virtualenv (1 CPU, no custom resource), second node from the
    Ray-only virtualenv (2 CPUs and `NODE_RESOURCE`), both joined before this returns."""
    venv = node_venv()
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and k not in KEY_VARS}
    token = secrets.token_hex(16)  # docs/ray.md: one token, exported on every machine
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token, RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    # Ray's socket paths must be short: /tmp/pr-XXXXXXXX
    temp_dirs = [Path(tempfile.mkdtemp(prefix="pr-", dir="/tmp")) for _ in range(2)]
    port = free_port()
    cluster = Cluster(f"127.0.0.1:{port}", env, temp_dirs, venv)
    common = ["--disable-usage-stats", "--block", "--node-ip-address=127.0.0.1"]
    head = [
        str(project_bin / "ray"), "start", "--head", f"--port={port}", "--num-cpus=1",
        "--include-dashboard=false", f"--temp-dir={temp_dirs[0]}", *common, *_ports(True),
    ]  # fmt: skip
    node = [
        str(venv / "bin" / "ray"), "start", f"--address={cluster.address}", "--num-cpus=2",
        f"--resources={{\"{NODE_RESOURCE}\": 100}}", f"--temp-dir={temp_dirs[1]}", *common,
        *_ports(False),
    ]  # fmt: skip
    try:
        cluster.sessions.append(_spawn(head, env, logs / "ray-head.log"))
        _wait(cluster, project_bin, lambda out: "Active:" in out, logs / "ray-head.log")
        cluster.node_session = _spawn(node, env, logs / "ray-node.log")
        cluster.sessions.append(cluster.node_session)
        _wait(cluster, project_bin, lambda out: NODE_RESOURCE in out, logs / "ray-node.log")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _spawn(cmd: list[str], env: dict[str, str], log: Path) -> int:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return proc.pid  # its session id: it leads a session of its own


def _wait(cluster: Cluster, project_bin: Path, ready: object, log: Path) -> None:
    deadline = time.monotonic() + 180
    status = [str(project_bin / "ray"), "status", f"--address={cluster.address}"]
    while time.monotonic() < deadline:
        done = subprocess.run(status, env=cluster.env, capture_output=True, text=True, timeout=60)
        if done.returncode == 0 and callable(ready) and ready(done.stdout):
            return
        time.sleep(1)
    raise AssertionError(f"the Ray cluster did not come up; see {log}:\n{log.read_text()[-3000:]}")
