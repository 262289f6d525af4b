"""A small suite and a way to run it against scripted candidates, for the judge tests (their
fixtures `suite_path` and `run_suite`, registered by the conftests of tests/runs and tests/e2e)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from proctor.cli.suite import SuiteRun
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.plan import Calling
from proctor.tasks.suite import TASK, load_file
from proctor.types import GenerationParams, Prompt

SUITE = """\
id,kind,material,question,expected,points,constraints,notes
ext,extraction,张三退款 299 元。,提取姓名和金额，输出 JSON。,"{""name"":""张三"",""amount"":299}",,,
sum,summary,Revenue grew 12% thanks to the East.,Summarise.,Revenue grew 12% (East).,12%;East,,
rw,rewrite,我们非常抱歉给您带来不便。,改写得更简洁。,抱歉给您添麻烦了。,,max_sentence=25,语气诚恳
ref,refusal,The office opened in 2019.,Who heads the office?,,,,Not mentioned.
"""

RunSuite = Callable[..., str]


@pytest.fixture
def suite_path(tmp_path: Path) -> Path:
    path = tmp_path / "mini.csv"
    path.write_text(SUITE, encoding="utf-8")
    return path


def by_input(suite: Path, replies: Mapping[str, str]) -> Callable[[Prompt], str]:
    """A FakeProvider script answering each case (found by its prompt) with replies[case id]."""
    inputs = {s.input: s.id for s in load_file(suite, None).samples}
    return lambda prompt: replies.get(inputs[prompt.messages[-1].content], "")


@pytest.fixture
def run_suite(tmp_path: Path) -> RunSuite:
    def run(
        suite: Path,
        replies: Mapping[str, Mapping[str, str]],
        results: Path | None = None,
        epochs: int = 1,
    ) -> str:
        data = load_file(suite, None)
        plan = RunPlan(
            task=TASK,
            samples=data.samples,
            dataset_hash=data.content_hash,
            generator_version=data.generator_version,
            models=tuple(replies),
            variant="suite",
            lang="en",
            params=GenerationParams(max_tokens=64),
            results_dir=results or tmp_path / "results",
            calling=Calling(epochs=epochs),
            source=data.source,
        )
        providers = {m: FakeProvider(m, by_input(suite, r)) for m, r in replies.items()}
        on_plan = SuiteRun.open(suite, None).on_plan(lambda _r, _c: None, plan.results_dir)
        outcome = asyncio.run(execute(plan, providers=providers, on_plan=on_plan))
        return outcome.run_id

    return run
