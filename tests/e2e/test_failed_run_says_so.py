"""A run whose calls failed says so wherever it is shown, with the command that asks them again:
summary.md, report.html and the viewer's runs list (which called such a run "complete", while its
files never said that its calls had failed, why, or how to retry them)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from proctor.runs.state import EXIT_CALLS_FAILED
from proctor.store import RunStore
from support.viewer_http import get, serving


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_run_whose_calls_failed_says_so_in_its_files_and_the_viewer(tmp_path: Path) -> None:
    port = _closed_port()  # nothing listens there: every call is refused
    model = f"openai-compat/down@http://127.0.0.1:{port}/v1"
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "arithmetic", "--n", "3", "-m", model,
         "-r", str(tmp_path), "--max-attempts", "1"],
        capture_output=True, text=True, timeout=300, env={"COLUMNS": "200", "NO_COLOR": "1",
                                                          "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == EXIT_CALLS_FAILED, done.stdout + done.stderr
    with RunStore.open(tmp_path) as store:
        (run,) = store.list_runs()
    retry = f"proctor run --retry-errors {run.run_id}"
    folder = tmp_path / "runs" / run.run_id
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert "Run state" in summary and "3 of 3 calls failed" in summary, summary
    assert "connection refused" in summary and retry in summary
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert 'id="state"' in html and "3 of 3 calls failed" in html and retry in html
    with serving(tmp_path) as viewer:
        listing = get(viewer, "/")
        assert "calls failed (3)" in listing and retry in listing, listing
        page = get(viewer, f"/runs/{run.run_id}")
        assert "3 of 3 calls failed" in page and retry in page
