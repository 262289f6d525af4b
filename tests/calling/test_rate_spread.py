"""`proctor run --rpm/--tpm` spreads its requests over the minute, as a user runs it: a child
`python -m proctor` against a stub on 127.0.0.1 that notes when each request arrived.

No upper time bound: a busy machine only spreads requests further apart, so the lower bound on
the span from the first arrival to the last fails only when the limiter lets a burst through
(before, `--rpm 300` let the whole minute's 300 go at once: 12 requests within a few ms)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.stub.config import StubConfig
from support.stub.server import run_stub

N = 12
SLACK_S = 0.6
"""How much earlier the last request may arrive than the limiter spaced it, relative to the
first (the first delayed on its way more than the last: measured 0.2 s on an idle box). Less
than the 0.8 s a limiter letting a second's quota (5) through at once would save."""


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [v for v in os.environ if "proxy" in v.lower()]:
        monkeypatch.delenv(var)


def run(results: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[float]]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    with run_stub(StubConfig()) as stub:
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "arithmetic", "--n", str(N),
             "-m", stub.model, "--concurrency", str(N), "-r", str(results), *args],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        arrivals = sorted(stub.stats().arrivals)
    return done, arrivals


def test_rpm_spaces_requests_60_over_n_seconds_apart(tmp_path: Path) -> None:
    done, arrivals = run(tmp_path, "--rpm", "300")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(arrivals) == N
    # 5 a second with a burst of max(1, 300/600) = 1: 11 gaps of 0.2 s at least.
    assert arrivals[-1] - arrivals[0] >= (N - 1) * 0.2 - SLACK_S, arrivals


def test_tpm_spaces_requests_by_their_tokens(tmp_path: Path) -> None:
    # Each call counts its prompt (about 30 tokens) plus --max-tokens 200; at 60,000 a minute
    # (1,000 a second, a bucket of 100) each waits for the one before it: 0.2 s at least.
    done, arrivals = run(tmp_path, "--tpm", "60000", "--max-tokens", "200")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(arrivals) == N
    assert arrivals[-1] - arrivals[0] >= (N - 1) * 0.2 - SLACK_S, arrivals
