"""One run per exit code, as a CI job meets them: a child `python -m proctor` against a stub on
127.0.0.1, then the files the run wrote. The table is docs/exit-codes.md's (and the README's;
proctor.runs.state)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from proctor.runs.state import (
    EXIT_CALLS_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
)
from proctor.store import RunStore
from proctor.types import Record
from support.store_watch import stop_when
from support.stub import StubConfig, run_stub

from .conftest import CliResult, child_env, proctor_cmd


def proctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        proctor_cmd(*args), env=child_env(), capture_output=True, text=True, timeout=180
    )


def only_run(results: Path) -> str:
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
    return run.run_id


def test_all_good_is_0(tmp_path: Path) -> None:
    with run_stub(StubConfig()) as stub:
        done = proctor("run", "arithmetic", "--n", "3", "-m", stub.model, "-r", str(tmp_path))
    assert done.returncode == EXIT_OK, done.stderr
    assert "incomplete" not in done.stdout + done.stderr
    assert "failed" not in done.stderr


def test_server_down_is_4_with_the_cause_in_words_and_the_command_that_finishes(
    tmp_path: Path,
) -> None:
    with run_stub(StubConfig()) as stub:
        port, model = stub.port, stub.model
    # The stub is gone: nothing listens on its port.
    down = proctor("run", "arithmetic", "--n", "3", "-m", model, "-r", str(tmp_path),
                   "--max-attempts", "2")  # fmt: skip
    assert down.returncode == EXIT_CALLS_FAILED, down.stderr
    run_id = only_run(tmp_path)
    assert f"connection refused at 127.0.0.1:{port} (3 of 3 calls)" in down.stdout
    assert f"`proctor run --retry-errors {run_id}`" in down.stderr
    # The report of that run says so at the top, and exits the same way.
    report = proctor("report", run_id, "-r", str(tmp_path))
    assert report.returncode == EXIT_CALLS_FAILED
    assert report.stdout.startswith(f"run {run_id} has failed calls:")
    # A gate over the answers that came back says nothing of those that did not: 4 first.
    gate = proctor("gate", run_id, "-r", str(tmp_path), "--require", "accuracy>=0.0")
    assert gate.returncode == EXIT_CALLS_FAILED, gate.stdout
    # Once the server is up, the printed command finishes the run: 0.
    with run_stub(StubConfig(), port=port) as stub:
        again = proctor("run", "--retry-errors", run_id, "-r", str(tmp_path))
        assert stub.stats().requests == 3
    assert again.returncode == EXIT_OK, again.stderr


def test_a_server_that_refuses_tools_is_4(tmp_path: Path) -> None:
    with run_stub(StubConfig(refuse_tools=True)) as stub:
        done = proctor("run", "arithmetic", "--n", "2", "-m", stub.model + "+calculator",
                       "-r", str(tmp_path), "--max-attempts", "1")  # fmt: skip
    assert done.returncode == EXIT_CALLS_FAILED, done.stderr
    assert "this model does not support tools (stub) (2 of 2 calls)" in done.stdout


def test_a_model_that_cannot_take_tools_is_refused_before_the_first_call(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")  # never loaded: the refusal comes first
    results = tmp_path / "R"
    done = proctor("run", "arithmetic", "--n", "2", "-m", f"local/{gguf}+calculator",
                   "-r", str(results))  # fmt: skip
    assert done.returncode == EXIT_USAGE, done.stderr
    assert "cannot be offered tools" in done.stderr
    assert not results.exists()


def test_an_open_breaker_is_3_and_retry_errors_finishes(tmp_path: Path) -> None:
    with run_stub(StubConfig(fault_rate=1.0, faults=("markup_error",))) as stub:
        port, model = stub.port, stub.model
        done = proctor("run", "arithmetic", "--n", "4", "-m", model, "-r", str(tmp_path),
                       "--concurrency", "1")  # fmt: skip
        assert stub.stats().requests == 1  # a 401 stops the model at once
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    run_id = only_run(tmp_path)
    assert "3 of 4 calls not asked" in done.stdout
    assert f"`proctor run --retry-errors {run_id}`" in done.stderr
    with run_stub(StubConfig(), port=port):
        again = proctor("run", "--retry-errors", run_id, "-r", str(tmp_path))
    assert again.returncode == EXIT_OK, again.stderr


def test_the_deadline_is_3_and_resume_finishes(tmp_path: Path) -> None:
    with run_stub(StubConfig(latency_s=0.3)) as stub:
        done = proctor("run", "arithmetic", "--n", "10", "-m", stub.model, "-r", str(tmp_path),
                       "--concurrency", "1", "--deadline", "1")  # fmt: skip
        assert done.returncode == EXIT_INCOMPLETE, done.stderr
        run_id = only_run(tmp_path)
        assert "(the deadline came first)" in done.stderr
        assert f"`proctor run --resume {run_id}`" in done.stderr
        again = proctor("run", "--resume", run_id, "-r", str(tmp_path), "--concurrency", "4")
    assert again.returncode == EXIT_OK, again.stderr


def test_ctrl_c_is_130_with_what_was_stored_and_the_command_that_resumes(tmp_path: Path) -> None:
    with run_stub(StubConfig(latency_s=0.2)) as stub:
        child = subprocess.Popen(
            proctor_cmd("run", "arithmetic", "--n", "30", "-m", stub.model, "-r", str(tmp_path),
                        "--concurrency", "1"),
            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        out, err = stop_when(child, lambda: _stored(tmp_path) >= 3, signal.SIGINT, wait_s=60)
    assert child.returncode == EXIT_INTERRUPTED, err
    run_id = only_run(tmp_path)
    with RunStore.open(tmp_path) as store:
        stored = len(store.records(run_id))
        assert store.run_status(run_id) == "interrupted"
    assert 3 <= stored < 30
    assert f"interrupted: run {run_id} keeps the {stored} of 30 answers stored" in err
    assert f"`proctor run --resume {run_id}` asks the rest" in err
    assert "Traceback" not in out + err
    report = proctor("report", run_id, "-r", str(tmp_path))
    assert report.returncode == EXIT_INCOMPLETE
    assert report.stdout.startswith(f"run {run_id} is incomplete:")
    assert f"{30 - stored} of 30 answers not asked yet" in report.stdout


def _stored(results: Path) -> int:
    """Records committed so far by a run in another process (0 before its store exists)."""
    db = results / "proctor.db"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.Error:  # not migrated yet
        return 0


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True, timeout=30,
    )  # fmt: skip
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and unshare to mount a tmpfs")
def test_a_full_disk_is_one_line_and_3(tmp_path: Path) -> None:
    """A 2 MB tmpfs (in a mount namespace of its own) fills while the run stores answers."""
    mount = tmp_path / "small"
    mount.mkdir()
    run = proctor_cmd("run", "arithmetic", "--n", "3000", "-m", "'fake/const:Final answer: 1'",
                      "-r", str(mount / "R"))  # fmt: skip
    script = f"mount -t tmpfs -o size=2000k tmpfs {mount} && exec " + " ".join(run)
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], env=child_env(),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "ExceptionGroup" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error: cannot add records to run"), lines
    assert lines[0].endswith("the disk is full (database or disk is full)"), lines
    assert re.search(r"`proctor run --resume \S+` finishes it$", lines[1]), lines


def test_a_temp_file_left_by_a_killed_report_is_removed_by_the_next(tmp_path: Path) -> None:
    with run_stub(StubConfig()) as stub:
        assert proctor("run", "arithmetic", "--n", "2", "-m", stub.model,
                       "-r", str(tmp_path)).returncode == 0  # fmt: skip
    run_id = only_run(tmp_path)
    run_dir = tmp_path / "runs" / run_id
    gone = subprocess.Popen(["true"])
    gone.wait()  # a process id that has ended: its writer was killed
    left = run_dir / f".samples.csv.{gone.pid}.k1ll3d.tmp"
    left.write_text("half a file")
    legacy = run_dir / ".report.html.ab12cd.tmp"  # no pid: an older proctor's, an hour old
    legacy.write_text("half")
    os.utime(legacy, (time.time() - 7200, time.time() - 7200))
    fresh = run_dir / ".summary.md.zz99yy.tmp"  # no pid and fresh: maybe still being written
    fresh.write_text("half")
    assert proctor("report", run_id, "-r", str(tmp_path)).returncode == 0
    assert not left.exists() and not legacy.exists()
    assert fresh.exists()
    assert (run_dir / "samples.csv").read_text("utf-8").startswith("run_id,")


def test_a_store_that_cannot_write_mid_run_is_one_line_and_3_anywhere(
    tmp_path: Path, cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full-disk path without a tmpfs: SQLite's own error once some answers are stored."""
    real = RunStore.add_records
    calls = {"n": 0}

    def add_records(self: RunStore, records: Sequence[Record]) -> None:
        calls["n"] += 1
        if calls["n"] <= 2:
            real(self, records)
            return
        with self._tx("add records to run x", write=True):  # the store's own wording
            raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(RunStore, "add_records", add_records)
    done = cli("run", "arithmetic", "--n", "20", "-m", "fake/const:Final answer: 1",
               "-r", str(tmp_path), "--concurrency", "1")  # fmt: skip
    assert done.code == EXIT_INCOMPLETE, done.output
    assert "Traceback" not in done.output and "ExceptionGroup" not in done.output
    lines = [line for line in done.err.splitlines() if line.strip()]
    assert lines[0].endswith("the disk is full (database or disk is full)"), lines
    assert "`proctor run --resume " in lines[1] and len(lines) == 2, lines
