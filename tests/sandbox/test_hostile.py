"""Hostile programs, each contained: what it tried, how the run ended, and that nothing outside
the sandbox changed. Run on a machine where namespaces work (we are root in CI); the tests that
need namespaces are skipped, loudly, where they do not."""

from __future__ import annotations

import asyncio
import glob
import os
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from proctor.sandbox import Job, Limits, detect, isolation_report, run_job, run_many, run_python

FAST = Limits(
    wall_s=6.0, cpu_s=2, memory_bytes=256 << 20, processes=16, disk_bytes=1 << 20,
    output_bytes=1 << 20,
)

needs_namespaces = pytest.mark.skipif(
    detect().mode == "none", reason=f"no namespaces here: {detect().reason}"
)


def test_a_plain_program_passes_and_its_output_is_kept() -> None:
    result = run_python("print('hello')\nassert 1 + 1 == 2\n", FAST)
    assert result.status == "passed", result
    assert result.stdout.strip() == "hello"


def test_a_failing_assert_fails() -> None:
    result = run_python("assert 1 + 1 == 3\n", FAST)
    assert result.status == "failed"
    assert "AssertionError" in result.stderr


@pytest.mark.parametrize("exit_call", ["import sys; sys.exit(0)", "import os; os._exit(0)"])
def test_leaving_early_with_status_zero_is_not_a_pass(exit_call: str) -> None:
    result = run_python(f"{exit_call}\nassert False, 'the tests'\n", FAST)
    assert result.status == "exited_early", result


@needs_namespaces
def test_network_cannot_reach_a_server_on_the_hosts_loopback() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list[object] = []

    def accept() -> None:
        for _ in range(40):
            try:
                accepted.append(server.accept())
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    program = (
        "import socket\n"
        f"s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "s.sendall(b'stolen')\n"
    )
    try:
        result = run_python(program, FAST)
    finally:
        thread.join()
        server.close()
    assert result.status == "failed"
    assert "ConnectionRefusedError" in result.stderr or "OSError" in result.stderr
    assert accepted == []
    assert [name for _, name in socket.if_nameindex()] != ["lo"]  # the host has its own


@needs_namespaces
def test_writing_outside_the_work_folder_is_refused() -> None:
    canary_tmp = Path(tempfile.gettempdir()) / f"proctor-canary-{uuid.uuid4().hex}"
    canary_repo = Path(__file__).with_name(f"canary-{uuid.uuid4().hex}")
    program = (
        "import os\n"
        "blocked = 0\n"
        f"targets = ({str(canary_tmp)!r}, {str(canary_repo)!r}, '../harness.py', '/etc/passwd')\n"
        "for path in targets:\n"
        "    try:\n"
        "        with open(path, 'a') as f:\n"
        "            f.write('pwned')\n"
        "    except OSError as e:\n"
        "        blocked += 1\n"
        "        print(path, type(e).__name__, e.errno)\n"
        "with open('inside.txt', 'w') as f:\n"
        "    f.write('fine')\n"
        "print('blocked', blocked)\n"
    )
    result = run_python(program, FAST)
    assert result.status == "passed", result
    assert "blocked 4" in result.stdout
    assert not canary_tmp.exists() and not canary_repo.exists()


@needs_namespaces
def test_a_fork_bomb_hits_the_process_limit_and_leaves_nothing_behind() -> None:
    program = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    result = run_python(program, FAST)
    assert result.status in ("timeout", "cpu_limit", "killed", "failed"), result
    for _ in range(600):  # the kernel tears the PID namespace down asynchronously (slow under load)
        if not _sandbox_processes():
            break
        time.sleep(0.1)
    assert _sandbox_processes() == []


def test_a_memory_bomb_runs_out_of_its_limit() -> None:
    program = "chunks = []\nwhile True:\n    chunks.append(bytearray(50_000_000))\n"
    result = run_python(program, FAST)
    assert result.status == "memory_limit", result


def test_an_infinite_loop_is_stopped_by_the_cpu_limit() -> None:
    result = run_python("while True:\n    pass\n", FAST)
    # on a loaded machine the wall-time limit may come first: stopped either way
    assert result.status in ("cpu_limit", "killed", "timeout"), result
    assert result.wall_s < FAST.wall_s + 60  # stopped, not run on (no tighter bound: load varies)


def test_a_sleeper_is_killed_at_the_wall_time_limit() -> None:
    limits = Limits(wall_s=1.5, cpu_s=2)
    result = run_python("import time\ntime.sleep(3600)\n", limits)
    assert result.status == "timeout", result
    assert result.wall_s < 60  # killed, not left to sleep (no tighter bound: load varies)


def test_environment_secrets_never_reach_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROCTOR_FAKE_API_KEY", "sk-test-s3cr3t-value")
    program = (
        "import os, glob\n"
        "print(dict(os.environ))\n"
        "for path in glob.glob('/proc/*/environ'):\n"
        "    try:\n"
        "        print(path, open(path, 'rb').read())\n"
        "    except OSError as e:\n"
        "        print(path, e)\n"
    )
    result = run_python(program, FAST)
    assert result.status == "passed", result
    assert "s3cr3t" not in result.stdout + result.stderr
    assert "PROCTOR_FAKE_API_KEY" not in result.stdout


@needs_namespaces
def test_killing_the_parent_or_everything_reaches_nothing_outside() -> None:
    program = (
        "import os, signal\n"
        "print('parent pid seen as', os.getppid())\n"
        "for pid in (os.getppid(), 1):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError as e:\n"
        "        print('kill', pid, type(e).__name__)\n"
        "try:\n"
        "    os.kill(-1, signal.SIGKILL)\n"
        "except OSError as e:\n"
        "    print('kill -1', type(e).__name__)\n"
        "print('still here')\n"
    )
    result = run_python(program, FAST)
    assert result.status == "passed", result
    assert "parent pid seen as 1" in result.stdout  # the launcher, PID 1 of its own namespace
    assert "still here" in result.stdout
    assert os.getppid() > 0  # and we, the real parent, are untouched


def test_huge_output_is_cut_at_the_file_limit() -> None:
    program = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = run_python(program, FAST)
    assert result.status == "output_limit", result
    assert len(result.stdout) < FAST.kept_output + 200


@needs_namespaces
def test_a_daemon_that_escapes_its_session_dies_with_the_sandbox() -> None:
    marker = "4242.5"
    program = (
        "import os\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    os.execv('/bin/sleep', ['sleep', '{marker}'])\n"
        "print('left a daemon behind')\n"
    )
    result = run_python(program, FAST)
    assert result.status == "passed", result
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, check=False)
    assert left.stdout.strip() == b"", "the daemon outlived its sandbox"


@needs_namespaces
def test_home_folders_and_root_files_are_out_of_reach() -> None:
    program = (
        "import os\n"
        "try:\n"
        "    print('root entries', os.listdir('/root'))\n"
        "except OSError as e:\n"
        "    print('root', type(e).__name__)\n"
        "try:\n"
        "    open('/etc/shadow').read()\n"
        "    print('shadow READ')\n"
        "except OSError as e:\n"
        "    print('shadow', type(e).__name__)\n"
    )
    result = run_python(program, FAST)
    assert result.status == "passed", result
    assert "root entries" not in result.stdout  # not listable (the interpreter may live below)
    assert "shadow READ" not in result.stdout


@needs_namespaces
def test_remounting_read_write_is_refused() -> None:
    program = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "rc = libc.mount(None, b'/', None, ctypes.c_ulong(32 | 4096), None)\n"
        "print('mount', rc, os.strerror(ctypes.get_errno()))\n"
        "open('/after-remount', 'w')\n"
    )
    result = run_job(Job(program, audit=False), FAST)  # ctypes is refused; the kernel too?
    assert "mount -1" in result.stdout
    assert result.status == "failed" and "Read-only file system" in result.stderr
    assert not Path("/after-remount").exists()


def test_many_runs_from_threads_and_from_async_code_are_independent() -> None:
    programs = [f"assert {i} * 2 == {i * 2}\nprint({i})" for i in range(8)]
    results = run_many(programs, FAST, workers=4)
    assert [r.status for r in results] == ["passed"] * 8
    assert [r.stdout.strip() for r in results] == [str(i) for i in range(8)]

    async def both() -> list[str]:
        done = await asyncio.gather(
            asyncio.to_thread(run_python, "print('a')", FAST),
            asyncio.to_thread(run_python, "raise SystemExit(3)", FAST),
        )
        return [r.status for r in done]

    assert asyncio.run(both()) == ["passed", "failed"]


def test_throwaway_folders_are_removed() -> None:
    # ours are named with our pid (others' may come and go meanwhile: colleagues run too)
    pattern = os.path.join(tempfile.gettempdir(), f"proctor-sandbox-{os.getpid()}-*")
    run_python(
        "open('big.txt', 'w').write('x' * 1000)\nimport os\nos.mkdir('sub')\nos.chmod('sub', 0)",
        FAST,
    )
    assert glob.glob(pattern) == []


@needs_namespaces
def test_isolation_report_is_measured() -> None:
    report = isolation_report()
    facts = report.facts
    assert facts["interfaces"] == ["lo"]
    assert facts["writes_outside_work"] == []
    assert facts["writes_work"] is True
    assert facts["cap_eff"] == "0000000000000000"
    assert facts["proc_mounted"] is False and facts["sockets"] == []
    assert not {"tmp", "home", "run", "var", "proc", "sys"} & set(facts["top_level"])
    assert "no network" in report.summary()


def _sandbox_processes() -> list[str]:
    """Processes running under one of the sandbox's uids (200000 and above)."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if 200_000 <= uid < 1_000_000:
            found.append(pid)
    return found


def test_a_sandbox_that_cannot_start_is_unscored_never_wrong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from proctor.sandbox import launch
    from proctor.score.code import grade_code
    from proctor.types import Sample

    monkeypatch.setattr(launch, "harness_argv", lambda: ["/nonexistent/python"])
    result = run_python("print('never runs')", FAST)
    assert result.status == "setup_error"
    sample = Sample(id="t", input="", target="", answer_type="text", metadata={"entry_point": "f"})
    score = grade_code(
        "```python\ndef f():\n    return 1\n```\nunique-marker-3141",
        "stop",
        sample,
        build=lambda code, _s: Job(code + "\n# unique-marker-3141\n"),
        limits=FAST,
    )
    assert score.outcome == "unscored"
    assert score.rule == "sandbox_error"


def test_a_main_block_is_not_run_as_in_humanevals_own_harness() -> None:
    program = (
        "def f():\n    return 1\n\nif __name__ == '__main__':\n    input()\n\nassert f() == 1\n"
    )
    assert run_python(program, FAST).status == "passed"


def test_a_tree_of_processes_shares_one_memory_limit() -> None:
    """Four processes of 400 MiB each: none hits its own limit, together they hit the
    solution's (a cgroup, else the launcher's count); the peak measured stays near it."""
    program = (
        "import os, time\n"
        "for _ in range(4):\n"
        "    if os.fork() == 0:\n"
        "        block = bytearray(400 << 20)\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "time.sleep(30)\n"
    )
    limits = Limits(wall_s=20.0, memory_bytes=1 << 30)
    result = run_python(program, limits)
    assert result.status == "memory_limit", result
    assert result.peak_memory_bytes is not None
    assert result.peak_memory_bytes <= limits.memory_bytes + (64 << 20)


def test_a_forked_copy_of_the_harness_never_reports_a_pass() -> None:
    """The child of a fork runs the rest of the program and reaches the harness's end; only
    the harness's own process may write the verdict, and it leaves without one."""
    program = "import os\nif os.fork() != 0:\n    os._exit(3)\n"
    result = run_python(program, FAST)
    assert result.status == "failed", result


def test_strict_limits_cap_output_that_the_reference_limits_let_through() -> None:
    from proctor.sandbox import REFERENCE, STRICT

    program = "import sys\nsys.stdout.write('z' * (20 << 20))\n"
    assert run_python(program, REFERENCE).status == "passed"
    assert run_python(program, STRICT).status == "output_limit"
