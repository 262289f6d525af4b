"""Shared by the bench scripts: the tests' stub in its own process, timing, medians, the machine."""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable  # the repo's virtualenv (bench scripts are run with .venv/bin/python)
PROCTOR = [PY, "-m", "proctor"]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a measured process: no proxies, plain terminal output, and bytecode
    (an installed proctor has its `.pyc` files, and scripts/setup.sh compiles the editable
    sources; PYTHONDONTWRITEBYTECODE, set on some machines, would make every run compile what
    is not compiled yet again each time, e.g. a checkout of an older commit: ~0.3 s a run)."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "120", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def watched(
    cmd: list[str], env: dict[str, str], stdout: Path | None = None
) -> tuple[float, Any, float]:
    """(wall s, wait4's rusage, peak RSS MB) of one child, its output into `stdout` (else
    dropped); the peak is its own VmHWM, read from /proc every 0.2 s until it exits (wait4's
    ru_maxrss also counts what the process held before its exec: its parent's pages)."""
    start = time.perf_counter()
    with open(stdout or os.devnull, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.PIPE)
        peak = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            try:
                found = re.search(r"^VmHWM:\s+(\d+) kB",
                                  Path(f"/proc/{proc.pid}/status").read_text(), re.M)  # fmt: skip
            except FileNotFoundError:
                found = None
            peak = max(peak, int(found.group(1)) if found else 0)
            time.sleep(0.2)
    took = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        said = proc.stderr.read().decode()[-1500:] if proc.stderr else ""
        raise RuntimeError(f"{cmd[:4]} failed: {said}")
    return took, usage, peak / 1024


@contextmanager
def stub_process(*args: str) -> Iterator[str]:
    """The tests' stub server (`python -m support.stub`, tests/support/stub) in its own process
    (so it never shares a GIL with what is measured); yields its base URL."""
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "tests"), env.get("PYTHONPATH", "")) if p
    )  # the stub is no part of the wheel: it is found in the repo's tests/
    proc = subprocess.Popen(
        [PY, "-m", "support.stub", "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError(f"the stub did not start: {url!r}")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@dataclass
class Timing:
    name: str
    runs: list[float] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.runs) if self.runs else float("nan")

    @property
    def spread(self) -> str:
        if not self.runs:
            return "–"
        return f"{min(self.runs):.2f}–{max(self.runs):.2f}"


def timed(cmd: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None,
          timeout: float = 900, log: Path | None = None) -> float:  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(list(cmd), env=env or child_env(), cwd=cwd, capture_output=True,
                          timeout=timeout)  # fmt: skip
    took = time.perf_counter() - start
    if log is not None:
        log.write_bytes(done.stdout + b"\n--- stderr ---\n" + done.stderr)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).decode(errors="replace")[-1500:]
        raise RuntimeError(f"{cmd[:4]} exited {done.returncode}: {tail}")
    return took


def repeat(fn: Callable[[], float], n: int) -> list[float]:
    return [fn() for _ in range(n)]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores ({cpu}){mem}, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def headless_chromium() -> Any:
    """Debian's chromium + chromium-driver through selenium, headless (never a download); raises
    RuntimeError saying what is missing."""
    chromium, driver_path = "/usr/bin/chromium", "/usr/bin/chromedriver"
    if not (os.path.exists(chromium) and os.path.exists(driver_path)):
        raise RuntimeError("chromium / chromium-driver not installed")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        raise RuntimeError("selenium is not installed") from e
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
