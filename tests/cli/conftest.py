"""Runs of the example suite by scripted models, for the gate tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from proctor.cli.suite import SuiteRun
from proctor.datasets.suites.case import CaseSpec
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.tasks.suite import TASK, load_file
from proctor.types import GenerationParams, Prompt

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk.csv"

RunSuite = Callable[..., str]


def reference_replies(suite: Path) -> dict[str, str]:
    """Each case's standard answer, which passes its own rules."""
    replies = {}
    for s in load_file(suite, None).samples:
        spec = CaseSpec.from_metadata(s.metadata)
        replies[s.id] = spec.reference if spec.kind == "refusal" else s.target
    return replies


@pytest.fixture
def run_suite(tmp_path: Path) -> RunSuite:
    def run(suite: Path, model: str, replies: Mapping[str, str], results: Path) -> str:
        data = load_file(suite, None)
        by_input = {s.input: s.id for s in data.samples}

        def script(prompt: Prompt) -> str:
            return replies[by_input[prompt.messages[-1].content]]

        plan = RunPlan(
            task=TASK,
            samples=data.samples,
            dataset_hash=data.content_hash,
            generator_version=data.generator_version,
            models=(model,),
            variant="suite",
            lang="en",
            params=GenerationParams(max_tokens=64),
            results_dir=results,
            source=data.source,
        )
        on_plan = SuiteRun.open(suite, None).on_plan(lambda _r, _c: None, results)
        provider = FakeProvider(model, script)
        return asyncio.run(execute(plan, providers={model: provider}, on_plan=on_plan)).run_id

    return run


def proctor(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`proctor` as a real process, for its exit code."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(COLUMNS="250", NO_COLOR="1", TERM="dumb")
    return subprocess.run(
        [sys.executable, "-m", "proctor", *(str(a) for a in args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
