"""`proctor.runs.score_diff`: what a re-grade changed, computed and written to
grader_diff.json (the CLI's `score --diff` is tested end to end in tests/audit/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.score_diff import grading_before, grading_diff
from proctor.store import RunStore
from proctor.types import Score
from support.store_factories import make_info, make_record, make_samples


def _run(tmp_path: Path) -> None:
    samples = make_samples(3)
    with RunStore.open(tmp_path) as store:
        store.create_run(make_info("r1", models=("fake/a",), size=3), samples, "fp", {})
        store.add_records([make_record("r1", s.id, text=f"reply {s.id}") for s in samples])
        store.save_scores(
            "r1",
            [
                ("fake/a", "s00000", 0, Score("correct", "old-rule", "")),
                ("fake/a", "s00001", 0, Score("wrong", "old-rule", "")),
                ("fake/a", "s00002", 0, Score("correct", "old-rule", "")),
            ],
            "arithmetic/1",
        )


def test_no_store_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no run store"):
        grading_before(tmp_path, "r1")


def test_only_the_flipped_verdicts_are_listed_and_written(tmp_path: Path) -> None:
    _run(tmp_path)
    before = grading_before(tmp_path, "r1")
    assert before.grader_version == "arithmetic/1" and not before.coarse
    with RunStore.open(tmp_path) as store:
        store.save_scores(
            "r1",
            [
                ("fake/a", "s00000", 0, Score("wrong", "new-rule", "")),  # flipped
                ("fake/a", "s00001", 0, Score("wrong", "new-rule", "")),  # same verdict
                ("fake/a", "s00002", 0, Score("correct", "new-rule", "")),  # same verdict
            ],
            "arithmetic/2",
        )
    diff = grading_diff(before, tmp_path)
    assert (diff.old_grader, diff.new_grader, diff.answers, diff.had_old) == (
        "arithmetic/1", "arithmetic/2", 3, True,
    )  # fmt: skip
    (flip,) = diff.flipped
    assert flip.key == ("fake/a", "s00000", 0)
    assert (flip.was.outcome, flip.now.outcome) == ("correct", "wrong")
    assert "reply s00000" in flip.excerpt
    assert diff.paired["became_not_correct"] == 1 and diff.paired["became_correct"] == 0
    written = json.loads(diff.path.read_text(encoding="utf-8"))
    assert written["new_grader"] == "arithmetic/2"
    assert [r["sample_id"] for r in written["flipped"]] == ["s00000"]
