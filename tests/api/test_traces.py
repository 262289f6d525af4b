"""`proctor.evaluate(..., otel_endpoint=URL)`: a script's run sends its spans as the CLI's does;
a collector that cannot be reached is a RuntimeWarning, and the run is returned all the same."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import proctor
from support.otlp import receive_traces


def test_a_scripts_run_sends_its_spans(tmp_path: Path) -> None:
    with receive_traces() as receiver:
        run = proctor.evaluate("arithmetic", "fake/const:7", n=3, results_dir=tmp_path,
                               otel_endpoint=receiver.url)  # fmt: skip
    (root,) = [s for s in receiver.spans if not s.parent_id]
    assert root.attributes["proctor.run.id"] == run.id
    assert len(receiver.spans) == 1 + 3 + 3
    grades = sorted(s.attributes["proctor.grade"] for s in receiver.spans
                    if "proctor.grade" in s.attributes)  # fmt: skip
    assert grades == sorted(i.score.outcome for i in run.items)


def test_an_unreachable_collector_is_a_warning_not_an_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.warns(RuntimeWarning, match="traces: spans not sent"):
        run = proctor.evaluate("arithmetic", "fake/const:7", n=2, results_dir=tmp_path,
                               otel_endpoint=f"http://127.0.0.1:{port}")  # fmt: skip
    assert len(run.items) == 2
