"""A results folder with two stored runs of fake models whose replies try to break the page."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proctor.calling.retry import RetryPolicy
from proctor.providers.fake import FakeProvider, Reply
from proctor.runs.ask import RunPlan, execute
from proctor.runs.grade import grade_run
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams, Prompt, Sample
from proctor.viewer import ViewerServer
from support.browser import browser_fixture
from support.hostile import HOSTILE_REPLIES

N = 24
SAMPLES = tuple(
    Sample(
        id=f"q{i:02d}",
        input=f"{i} + 100",
        target=str(i + 100),
        category=("add", "加法", "more")[i % 3],
        difficulty=("easy", "hard")[i % 2],
    )
    for i in range(N)
)
MODELS = ("fake/steady", "fake/wild")


def index_of(prompt: Prompt) -> int:
    content = prompt.messages[-1].content
    return next(i for i, s in enumerate(SAMPLES) if content.endswith(f"Problem: {s.input}"))


def script(model: str, run: int) -> Any:
    """fake/steady answers 2 in 3 right in run 1 and 5 in 6 in run 2; fake/wild is right on
    every 4th item and otherwise says something hostile."""

    def reply(prompt: Prompt) -> Reply:
        i = index_of(prompt)
        right = f"Adding.\nFinal answer: {SAMPLES[i].target}"
        if model == "fake/steady":
            wrong = i % 3 == 0 if run == 1 else i % 6 == 0
            return f"Final answer: {i}" if wrong else right
        return right if i % 4 == 0 else HOSTILE_REPLIES[i % len(HOSTILE_REPLIES)]

    return reply


def correct_count(model: str, run: int) -> int:
    if model == "fake/steady":
        return sum(1 for i in range(N) if not (i % 3 == 0 if run == 1 else i % 6 == 0))
    return sum(1 for i in range(N) if i % 4 == 0)


@dataclass(frozen=True)
class Results:
    path: Path
    run_ids: tuple[str, str]
    """Run 1 (graded by the current rules) and run 2 (its stored grades made by an older version
    of the rules: the viewer shows them as stored and says that `proctor score` re-grades)."""


def make_results(root: Path) -> Results:
    ids: list[str] = []
    for run in (1, 2):
        plan = RunPlan(
            task=TASK,
            samples=SAMPLES,
            dataset_hash="sha256:viewer-test",
            generator_version="test",
            models=MODELS,
            variant="B",
            lang="en",
            params=GenerationParams(timeout_s=5.0, max_tokens=64 + run),
            results_dir=root,
            calling=Calling(retry=RetryPolicy(max_attempts=1)),
        )
        providers = {m: FakeProvider(m, script(m, run)) for m in MODELS}
        outcome = asyncio.run(execute(plan, providers=providers))  # type: ignore[arg-type]
        ids.append(outcome.run_id)
    with RunStore.open(root) as store:
        grade_run(store, ids[1], dataclasses.replace(TASK, version="0"))
    return Results(root, (ids[0], ids[1]))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return make_results(tmp_path_factory.mktemp("viewer") / "results")


@contextmanager
def serve(path: Path) -> Iterator[ViewerServer]:
    """A viewer over `path` on a free port, in a thread, until the generator is closed."""
    srv = ViewerServer(path, 0, quiet=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def server(results: Results) -> Iterator[ViewerServer]:
    with serve(results.path) as srv:
        yield srv


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    yield from browser_fixture()
