"""`proctor view` on a generated 100,000-answer run: every page it serves for that run leaves the
viewer process under 300 MB resident at its peak (VmHWM: a memory bound, not a timing)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from support.big_store import make_big_store

LIMIT_MB = 300
RUN_ID = "big-run"
MODELS = ("big/alpha", "big/beta")
N_ITEMS = 50_000  # × 2 models = 100,000 answers


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    assert match, status
    return int(match.group(1)) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to read RSS")
def test_viewer_memory_on_a_100k_answer_run(tmp_path: Path) -> None:
    root = tmp_path / "results"
    make_big_store(root, N_ITEMS, MODELS, RUN_ID)
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", "view", "-r", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + (proc.stderr.read() if proc.stderr else "")
        base = found.group(0).rstrip("/")
        pages = {
            "/": "big/alpha",
            f"/runs/{RUN_ID}": "1–50 of 100000",
            f"/runs/{RUN_ID}/answers?outcome=wrong&q=Final&page=600": "29951–30000 of 33334",
            f"/runs/{RUN_ID}/answers?model=big/beta&q=i049999": "1–1 of 1",
            f"/runs/{RUN_ID}/samples": "1–50 of 100000",
            f"/runs/{RUN_ID}/answers?page=99999999999999999999": "none of 100000 on this page",
            f"/runs/{RUN_ID}/items/i042000": 'data-outcome="wrong"',
            "/models/big%2Falpha": "66.7 %",
            f"/runs/{RUN_ID}/progress": "100000 of 100000",
        }
        for path, expected in pages.items():
            with urllib.request.urlopen(base + path, timeout=120) as reply:
                body = reply.read().decode("utf-8")
            assert expected in body, path
            assert len(body) < 200_000, f"{path} is {len(body)} bytes: not a page at a time"
        peak = peak_rss_mb(proc.pid)
        print(f"viewer peak RSS {peak:.0f} MB")
        assert peak < LIMIT_MB, f"the viewer peaked at {peak:.0f} MB"
    finally:
        proc.terminate()
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
