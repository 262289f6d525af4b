"""`proctor.runs.judge_report.judge_target`: the run `proctor judge` grades and the judge
settings its suite keeps (the judge phase and its report are tested through the CLI in
tests/audit/test_judge_validation.py and tests/runs/test_judge.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.judge_report import judge_target
from proctor.runs.suites import record_suite
from proctor.store import RunStore
from support.store_factories import make_info, make_samples


def _run(tmp_path: Path, run_id: str) -> None:
    with RunStore.open(tmp_path) as store:
        store.create_run(make_info(run_id, size=1), make_samples(1), f"fp-{run_id}", {})


def test_no_store_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no run store"):
        judge_target(tmp_path, "latest")


def test_a_run_without_a_suite_has_no_judge_settings(tmp_path: Path) -> None:
    _run(tmp_path, "plain")
    target = judge_target(tmp_path, "plain")
    assert (target.run_id, target.kinds, target.max_tokens) == ("plain", None, None)


def test_the_suite_recorded_in_the_run_gives_its_kinds_and_reply_length(tmp_path: Path) -> None:
    _run(tmp_path, "suite1")
    suite = {"name": "desk", "judge_kinds": ["rewrite", 3], "judge_max_tokens": 300}
    record_suite(tmp_path, "suite1", suite)
    record_suite(tmp_path, "suite1", {"name": "later"})  # a resumed run keeps its first
    target = judge_target(tmp_path, "suite1")
    assert (target.kinds, target.max_tokens) == (("rewrite", "3"), 300)


def test_settings_of_the_wrong_type_are_not_used(tmp_path: Path) -> None:
    _run(tmp_path, "odd")
    record_suite(tmp_path, "odd", {"judge_kinds": "rewrite", "judge_max_tokens": 3.5})
    target = judge_target(tmp_path, "odd")
    assert (target.kinds, target.max_tokens) == (None, None)
