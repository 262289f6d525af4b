"""Run one Python program in a throwaway folder, in its own namespaces, with limits, and say how
it ended.

The program is written to `<tmp>/work/solution.py` and run by a small harness that reads a
one-time token from stdin before the program starts and prints it only after the program has run
to its end: a program that leaves early with `sys.exit(0)` or `os._exit(0)` has not passed. The
program runs as module "solution", not "__main__" (as in HumanEval's own harness), so a reply's
`if __name__ == "__main__":` demo block, which may wait for input, is not run. The
launcher (`_launcher.py`) sets up the isolation (see `isolation.py`) and the limits; on the wall
timeout the whole process group is killed, and with namespaces the end of the launcher, PID 1 of
the program's PID namespace, ends every process the program started.

Safe to call from any thread (no `preexec_fn`; the limits are set in the launcher) and bounded
in time by `Limits.wall_s`; at most one run per CPU core is in flight in a process, whatever the
number of callers.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from proctor.sandbox.isolation import Isolation, detect

RunStatus = Literal[
    "passed",
    "failed",
    "exited_early",
    "timeout",
    "cpu_limit",
    "memory_limit",
    "output_limit",
    "killed",
    "setup_error",
]
"""How a run ended. Only `setup_error` is the sandbox's fault; every other status is the
program's doing."""


@dataclass(frozen=True)
class Limits:
    """What one run may use. The defaults fit HumanEval and MBPP tests with a wide margin."""

    wall_s: float = 15.0
    cpu_s: int = 10
    memory_bytes: int = 1 << 30
    processes: int = 32
    file_bytes: int = 16 << 20
    """Largest file the program may write, its stdout and stderr included."""
    open_files: int = 256
    kept_output: int = 32 << 10
    """How much of stdout and of stderr is kept in the result."""

    def describe(self) -> str:
        return (
            f"wall {self.wall_s:g} s, CPU {self.cpu_s} s, memory {self.memory_bytes >> 20} MiB,"
            f" {self.processes} processes, files {self.file_bytes >> 20} MiB"
        )


@dataclass(frozen=True)
class SandboxResult:
    status: RunStatus
    exit_code: int | None
    """The program's exit status (negative: killed by that signal); None when unknown."""
    stdout: str
    stderr: str
    wall_s: float
    isolation: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


_HARNESS = """\
import os, runpy, sys

def _run():
    token = sys.stdin.readline().strip()
    sys.argv = ["solution.py"]
    runpy.run_path("solution.py", run_name="solution")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os.write(1, ("\\n" + token + "\\n").encode())

_run()
"""

_LAUNCHER = Path(__file__).with_name("_launcher.py")
_MASKED = ("/root", "/home")
_slots = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))


def _interpreter() -> tuple[str, str]:
    """The base interpreter (not a virtual environment's) and its installation prefix."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def _sandbox_uid() -> int:
    # A fresh uid per run, so the process limit counts this run's processes only.
    return 200_000 + secrets.randbelow(800_000)


def _read_kept(path: Path, keep: int) -> tuple[str, bytes]:
    """The first `keep` bytes as text, and the last 256 bytes raw (where the token is)."""
    with open(path, "rb") as f:
        head = f.read(keep)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 256))
        tail = f.read()
    text = head.decode("utf-8", errors="replace")
    if size > keep:
        text += f"\n… [{size - keep} more bytes not kept]"
    return text, tail


def _remove(base: Path) -> None:
    def retry(func: object, path: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            os.chmod(path, stat.S_IRWXU)
            if callable(func):
                func(path)

    shutil.rmtree(base, onerror=retry)


def _config(iso: Isolation, base: Path, limits: Limits, status_fd: int) -> dict[str, object]:
    exe, prefix = _interpreter()
    work = base / "work"
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(work),
        "TMPDIR": str(work),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    python = exe
    cfg: dict[str, object] = {"work": str(work), "status_fd": status_fd, "limits": asdict(limits)}
    if iso.mode != "none":
        mount_point = base / "python"
        mount_point.mkdir()
        rel = os.path.relpath(exe, prefix)
        if not rel.startswith(".."):
            python = str(mount_point / rel)
            cfg["python_prefix"] = prefix
            cfg["python_mount"] = str(mount_point)
            if glob.glob(os.path.join(prefix, "lib", "libpython*.so*")):
                env["LD_LIBRARY_PATH"] = str(mount_point / "lib")
        cfg["mounts"] = True
        cfg["mask"] = [m for m in _MASKED if not str(base).startswith(m + "/")]
    if iso.mode == "root":
        uid = _sandbox_uid()
        cfg["uid"] = uid
        os.chown(work, uid, uid)
    cfg["argv"] = [python, "-S", "-s", "-B", str(base / "harness.py")]
    cfg["env"] = env
    return cfg


def _drain(fd: int) -> str:
    os.set_blocking(fd, False)
    chunks = []
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")


def _classify(code: int | None, token_seen: bool, stderr: str) -> tuple[RunStatus, str]:
    if code == 0:
        if token_seen:
            return "passed", ""
        return "exited_early", "the program exited with status 0 before its tests had run"
    if code is None:
        return "setup_error", "the launcher ended without reporting the program's status"
    if code == -signal.SIGXCPU:
        return "cpu_limit", "killed at the CPU-time limit"
    if code == -signal.SIGXFSZ:
        return "output_limit", "killed for writing more than the file/output limit"
    if code == -signal.SIGKILL:
        return "killed", "killed (CPU hard limit, or it killed itself)"
    if "File too large" in stderr[-4000:]:  # Python ignores SIGXFSZ: the write fails instead
        return "output_limit", "stopped at the file/output size limit"
    if "MemoryError" in stderr[-4000:]:
        return "memory_limit", "ran out of its memory limit"
    if code < 0:
        return "failed", f"killed by signal {-code} ({signal.Signals(-code).name})"
    return "failed", f"exit status {code}"


def _run(source: str, limits: Limits, iso: Isolation) -> SandboxResult:
    if iso.required and iso.mode == "none":
        return SandboxResult(
            "setup_error", None, "", "", 0.0, iso.tag, f"isolation required: {iso.reason}"
        )
    base = Path(tempfile.mkdtemp(prefix="proctor-sandbox-"))
    start = time.monotonic()
    try:
        os.chmod(base, 0o755)
        (base / "work").mkdir(mode=0o700)
        (base / "harness.py").write_text(_HARNESS, encoding="utf-8")
        (base / "work" / "solution.py").write_text(source, encoding="utf-8")
        read_fd, write_fd = os.pipe()
        cfg = _config(iso, base, limits, write_fd)
        if "uid" in cfg:
            os.chown(base / "work" / "solution.py", int(str(cfg["uid"])), int(str(cfg["uid"])))
        (base / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
        cmd = [
            *iso.prefix,
            sys.executable,
            "-I",
            "-S",
            "-B",
            str(_LAUNCHER),
            str(base / "config.json"),
        ]
        token = secrets.token_hex(16)
        timed_out = False
        with open(base / "stdout", "wb") as out, open(base / "stderr", "wb") as err:
            try:
                proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                    cwd=base,
                    start_new_session=True,
                    pass_fds=(write_fd,),
                )
            except OSError as e:
                os.close(read_fd)
                why = f"could not start the sandbox: {e}"
                return SandboxResult("setup_error", None, "", "", 0.0, iso.tag, why)
            finally:
                os.close(write_fd)
            assert proc.stdin is not None
            with contextlib.suppress(OSError):
                proc.stdin.write((token + "\n").encode())
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=limits.wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        status_lines = _drain(read_fd).splitlines()
        wall = time.monotonic() - start
        stdout, tail = _read_kept(base / "stdout", limits.kept_output)
        stderr, _ = _read_kept(base / "stderr", limits.kept_output)
        token_seen = f"\n{token}\n".encode() in tail
        stdout = stdout.replace(f"\n{token}\n", "").replace(token, "")
        setup = next((line for line in status_lines if line.startswith("setup-failed")), None)
        if setup is not None or not any(line.startswith("ready") for line in status_lines):
            # the launcher failed, or never got as far as starting the program: not its fault
            why = setup[len("setup-failed ") :] if setup else "the launcher never became ready"
            why += f" (stderr: {stderr.strip()[-300:]})" if stderr.strip() else ""
            return SandboxResult("setup_error", None, stdout, stderr, wall, iso.tag, why)
        if timed_out:
            return SandboxResult(
                "timeout",
                None,
                stdout,
                stderr,
                wall,
                iso.tag,
                f"killed at the wall-time limit of {limits.wall_s:g} s",
            )
        exits = [line for line in status_lines if line.startswith("exit ")]
        code = int(exits[-1].split()[1]) if exits else None
        status, detail = _classify(code, token_seen, stderr)
        return SandboxResult(status, code, stdout, stderr, wall, iso.tag, detail)
    finally:
        _remove(base)


def run_python(source: str, limits: Limits | None = None) -> SandboxResult:
    """Run `source` as a Python program in the sandbox and report how it ended."""
    iso = detect()
    with _slots:
        return _run(source, limits or Limits(), iso)


def run_many(
    sources: Iterable[str], limits: Limits | None = None, *, workers: int | None = None
) -> list[SandboxResult]:
    """`run_python` over many programs, in parallel (one per core by default), in order."""
    todo: Sequence[str] = list(sources)
    with ThreadPoolExecutor(max_workers=workers or max(1, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda s: run_python(s, limits), todo))
