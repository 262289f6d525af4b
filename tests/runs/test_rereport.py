"""`proctor.runs.rereport`: a stored run found, graded again and reported, as data (the CLI's
`score` and `report` print it; they are tested end to end in tests/e2e/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError, ProctorError
from proctor.runs.rereport import find_run, load_reported, report_run, turn_run_of
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task
from support.store_factories import make_info, make_record, make_samples


def _run(tmp_path: Path) -> None:
    samples = make_samples(2)
    with RunStore.open(tmp_path) as store:
        store.create_run(make_info("r1", models=("fake/a",), size=2), samples, "fp", {})
        store.add_records(
            [
                make_record("r1", samples[0].id, text="0 + 0 = 0. Final answer: 0"),
                make_record("r1", samples[1].id, text="Final answer: 7"),
            ]
        )


def test_no_store_is_refused_and_none_is_created(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no run store"):
        find_run(tmp_path, "latest")
    assert not (tmp_path / "proctor.db").exists()


def test_an_unknown_run_is_an_error_and_not_a_turn_run(tmp_path: Path) -> None:
    _run(tmp_path)
    with pytest.raises(ProctorError):
        find_run(tmp_path, "nope")
    assert turn_run_of(tmp_path, "nope") == ("", "")
    assert turn_run_of(tmp_path, "r1") == ("", "")  # a run of samples


def test_report_run_grades_again_and_writes_the_files(tmp_path: Path) -> None:
    _run(tmp_path)
    assert find_run(tmp_path, "r1").turns is False
    asked: list[tuple[str, str]] = []

    def task_for(name: str, limits: str) -> Task:
        asked.append((name, limits))
        return get_task(name)

    shown = report_run(tmp_path, "latest", None, task_for, regrade=True)
    assert asked == [("arithmetic", "")]
    assert shown.run_id == "r1" and shown.exit_code == 0
    assert {p.name for p in shown.written} >= {"results.json", "summary.md"}
    outcomes = sorted(i.score.outcome for i in shown.stats.items)
    assert outcomes == ["correct", "wrong"]  # 1 + 1 is not 7
    task, again = load_reported(tmp_path, "r1", None, save=False)
    assert task.name == "arithmetic" and again.written == []
    assert sorted(i.score.outcome for i in again.stats.items) == outcomes
