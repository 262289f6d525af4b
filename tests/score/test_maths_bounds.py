"""The symbolic maths check is safe from threads and async code, bounded in time, and a check
that runs out of time is unscored, never wrong."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from proctor.sandbox import BoundedWorker
from proctor.score import maths, mathverify
from proctor.types import Sample


def test_symbolic_checks_from_threads_and_async_code() -> None:
    results: list[str] = []

    def check() -> None:
        results.append(maths.equivalent("\\sqrt{8}", "2\\sqrt{2}").verdict)

    threads = [threading.Thread(target=check) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    async def in_loop() -> str:
        eq = await asyncio.to_thread(maths.equivalent, "\\frac{\\pi}{2}", "\\pi/2")
        return eq.verdict

    assert results == ["equal"] * 4
    assert asyncio.run(in_loop()) == "equal"


def test_exact_big_integers_never_go_through_floats() -> None:
    assert maths.equivalent("99999999999", "100000000000").verdict == "different"
    assert maths.equivalent("10^{11}", "100000000000").verdict == "equal"
    assert maths.equivalent("123456789012345678901", "123456789012345678900").verdict == "different"


def test_a_worker_call_that_overruns_is_killed_and_replaced() -> None:
    worker = BoundedWorker("time:sleep")
    assert worker.call(5, timeout_s=0.5).status == "timeout"
    assert worker.call(0.01, timeout_s=5).status == "ok"
    worker.close()


def test_a_maths_check_that_times_out_is_unscored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_checker.py").write_text(
        "import time\ndef verify(request):\n    time.sleep(60)\n", encoding="utf-8"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    slow = BoundedWorker("slow_checker:verify")
    monkeypatch.setattr(mathverify, "_worker", slow)
    sample = Sample(id="s", input="q", target="\\sqrt{2}", answer_type="text")
    score = maths.grade_maths(
        "\\boxed{2^{1/2}}", "stop", sample, asked=("boxed",), numeric=False, timeout_s=1.0
    )
    slow.close()
    assert score.outcome == "unscored"
    assert score.rule == "maths_timeout"
