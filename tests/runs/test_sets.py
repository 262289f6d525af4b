"""The plan of an eval set (`proctor.runs.sets`): each task's run plan built as a single run's,
one fingerprint per set of plans, the stored plan read back as it was written, and a set that
cannot be asked refused before anything is written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.plan import Asking, Calling, Paper, fingerprint
from proctor.runs.sets import SetPlan, SetTask, execute_set, run_plans, set_fingerprint


def _plan(tmp_path: Path, *tasks: SetTask, models: tuple[str, ...] = ("fake/const:1",)) -> SetPlan:
    return SetPlan(tasks=tasks, models=models, results_dir=tmp_path, calling=Calling(epochs=2))


def test_each_task_is_a_run_plan_with_the_commands_calling(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        SetTask("arithmetic", Paper(limit=3)),
        SetTask("gsm8k", Paper(limit=2), Asking(temperature=0.5)),
    )
    a, g = run_plans(plan)
    assert (a.task.name, len(a.samples), a.calling.epochs) == ("arithmetic", 3, 2)
    assert (g.task.name, len(g.samples), g.params.temperature) == ("gsm8k", 2, 0.5)
    assert set_fingerprint([a, g]) != set_fingerprint([g, a])
    assert set_fingerprint([a, g]) == set_fingerprint(run_plans(plan))
    assert fingerprint(a) != fingerprint(g)


def test_the_stored_form_reads_back(tmp_path: Path) -> None:
    task = SetTask("gsm8k", Paper(seed=4, limit=2), Asking(prompt="B", max_tokens=64))
    back = SetTask.from_json(task.to_json(), Asking())
    assert back == task


def test_a_bad_set_writes_nothing(tmp_path: Path) -> None:
    for plan in (
        _plan(tmp_path),
        _plan(tmp_path, SetTask("arithmetic"), SetTask("arithmetic")),
        _plan(tmp_path, SetTask("arithmetic"), models=("fake/nope",)),
    ):
        with pytest.raises(ConfigError):
            asyncio.run(execute_set(plan))
    assert not (tmp_path / "proctor.db").exists()
