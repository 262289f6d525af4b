"""SIGTERM (CI runners, `timeout`, `kill`) and SIGHUP (a closed terminal) stop a run as Ctrl-C
does: the answers received are stored, the run is marked interrupted, a line gives the count
and the command that resumes it, and the exit code says which signal it was (128 + its number:
143, 129). The resumed run then finishes without asking a stored answer again. Through the
CLI: a child `python -m proctor run` against a slow stub on 127.0.0.1."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from proctor.prompts.arithmetic import build_prompt
from proctor.runs.state import EXIT_HANGUP, EXIT_TERMINATED
from proctor.store import RunStore
from proctor.tasks.registry import get_task, load_for_run
from support.store_watch import stop_when
from support.stub import StubConfig, prompt_key, run_stub

from .conftest import child_env, proctor_cmd

N = 30


def stored_ids(results: Path) -> set[str]:
    """Sample ids stored so far by a run in another process (none before its store exists)."""
    db = results / "proctor.db"
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return {row[0] for row in conn.execute("SELECT sample_id FROM records")}
    except sqlite3.Error:  # not migrated yet
        return set()


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, EXIT_TERMINATED), (signal.SIGHUP, EXIT_HANGUP)]
)
def test_a_stop_signal_is_ctrl_c_with_its_own_exit_code_and_resume_finishes(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    results = tmp_path / "R"
    samples = load_for_run(get_task("arithmetic"), n=N).samples
    key_of = {s.id: prompt_key(build_prompt(s, "B", "en").messages[-1].content) for s in samples}
    with run_stub(StubConfig(latency_s=0.2)) as stub:
        child = subprocess.Popen(
            proctor_cmd("run", "arithmetic", "--n", str(N), "-m", stub.model, "-r", str(results),
                        "--concurrency", "2"),
            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        out, err = stop_when(child, lambda: len(stored_ids(results)) >= 4, signum)
        assert child.returncode == code, (child.returncode, out + err)
        with RunStore.open(results) as store:
            (run,) = store.list_runs()
            run_id = run.run_id
            kept = len(store.records(run_id))
            assert store.run_status(run_id) == "interrupted"
        assert 4 <= kept < N
        # Every answer the stub gave before the signal was stored (2 may have been in flight).
        assert stub.stats().completions <= kept + 2
        name = signum.name
        assert f"interrupted by {name}: run {run_id} keeps the {kept} of {N} answers stored" in err
        assert f"`proctor run --resume {run_id}` asks the rest" in err
        assert "Traceback" not in out + err
        before = stored_ids(results)

        again = subprocess.run(
            proctor_cmd("run", "--resume", run_id, "-r", str(results)),
            env=child_env(), capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert again.returncode == 0, again.stdout + again.stderr
        asked = stub.stats().by_prompt
    assert stored_ids(results) == {s.id for s in samples}
    with RunStore.open(results) as store:
        assert store.run_status(run_id) == "complete"
    for sid in before:  # nothing stored was lost, nor asked again
        assert asked[key_of[sid]] == 1, sid


def test_sighup_ignored_at_start_as_nohup_does_stays_ignored(tmp_path: Path) -> None:
    results = tmp_path / "R"

    def as_nohup() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    with run_stub(StubConfig(latency_s=0.1)) as stub:
        child = subprocess.Popen(
            proctor_cmd("run", "arithmetic", "--n", "12", "-m", stub.model, "-r", str(results),
                        "--concurrency", "1"),
            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=as_nohup,
        )  # fmt: skip
        out, err = stop_when(child, lambda: len(stored_ids(results)) >= 2, signal.SIGHUP, end_s=120)
    assert child.returncode == 0, out + err
    assert len(stored_ids(results)) == 12 and "interrupted" not in err
