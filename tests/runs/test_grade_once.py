"""Each answer is graded once per grader version, and its grade is stored: `proctor run` grades
every answer as it is stored, and nothing that shows a run (`report`, `compare`, `gate`, the
viewer) grades again; only `proctor score` does, once more per answer. Counted on the grader
calls of a task, through the CLI against a scripted loopback model."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.store import RunStore
from proctor.tasks import registry
from proctor.tasks.arithmetic import TASK
from proctor.types import Record, Sample, Score
from proctor.viewer.runs import load_run
from support.stub.scripted import Scripted, ScriptedServer, run_scripted

N = 6


def _reply(messages: list[dict[str, Any]]) -> Scripted:
    asked = str(messages[-1]["content"])
    if "×" in asked:  # some questions fail: a failed call must never reach the grader
        return Scripted(status=500)
    return Scripted("Final answer: 7")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with run_scripted(_reply) as s:
        yield s


@pytest.fixture
def graded(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str, int]]:
    """Every grader call of the arithmetic task, by (model, sample, epoch)."""
    calls: Counter[tuple[str, str, int]] = Counter()

    def counting(record: Record, sample: Sample) -> Score:
        assert record.status == "ok", "a failed call reached the grader"
        calls[(record.model, record.sample_id, record.epoch)] += 1
        return TASK.grade(record, sample)

    # TASKS is a read-only, lazily filled table: the counting task goes where a loaded one lives
    loaded = registry.TASKS._loaded  # type: ignore[attr-defined]
    monkeypatch.setitem(loaded, "arithmetic", dataclasses.replace(TASK, grade=counting))
    return calls


def _cli(*args: object) -> int:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code


def test_an_answer_is_graded_once_per_run_and_once_more_per_score(
    server: ScriptedServer, graded: Counter[tuple[str, str, int]], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    models = [f"{server.model}", f"openai-compat/other@{server.base_url}"]
    run = ["run", "arithmetic", "--n", N, "--samples", 2, "--temperature", 0.5]
    code = _cli(*run, "-m", models[0], "-m", models[1], "-r", results, "--max-attempts", 1)
    assert code == 4  # some calls failed
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
        run_id = row.run_id
        records = store.records(run_id)
        answered = {(r.model, r.sample_id, r.epoch) for r in records if r.status == "ok"}
        assert len(store.scores(run_id)) == len(records) == N * 2 * 2
    assert 0 < len(answered) < len(records)
    assert set(graded) == answered
    assert max(graded.values()) == 1, "an answer was graded twice in one run"

    # Showing the run grades nothing.
    before = sum(graded.values())
    assert _cli("report", run_id, "-r", results) == 4
    assert _cli("compare", run_id, "--models", models[0], models[1], "-r", results) == 0
    assert _cli("gate", run_id, "--require", "accuracy>=0", "-r", results) == 4
    with RunStore.open(results) as store:
        load_run(store, run_id)
    assert sum(graded.values()) == before

    # `proctor score` grades every answer once more, and stores it.
    assert _cli("score", run_id, "-r", results) == 4
    assert set(graded) == answered and set(graded.values()) == {2}
    document = json.loads((results / "runs" / run_id / "results.json").read_text())
    assert [m["n_items"] for m in document["models"]] == [N * 2, N * 2]


def test_a_resumed_run_grades_only_what_it_stores_now(
    server: ScriptedServer, graded: Counter[tuple[str, str, int]], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    base = ["run", "arithmetic", "--n", N, "-m", server.model, "-r", results, "--max-attempts", 1]
    assert _cli(*base) == 4
    first = sum(graded.values())
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
    assert _cli("run", "--retry-errors", row.run_id, "-r", results, "--max-attempts", 1) == 4
    assert sum(graded.values()) == first  # the retried calls failed again: nothing to grade
    assert max(graded.values()) == 1
