"""`proctor.runs.listing`: the lines of `proctor list runs`, read from the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.listing import run_lines
from proctor.store import RunStore
from support.store_factories import make_info, make_record, make_samples


def test_no_store_is_refused_and_none_is_created(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no run store"):
        run_lines(tmp_path)
    assert not (tmp_path / "proctor.db").exists()


def test_an_ungraded_run_and_a_model_with_no_answer_are_not_shown_as_graded(
    tmp_path: Path,
) -> None:
    samples = make_samples(2)
    with RunStore.open(tmp_path) as store:
        store.create_run(make_info("r1", size=2), samples, "fp1", {})
        store.add_records([make_record("r1", s.id) for s in samples])
    (line,) = run_lines(tmp_path)
    assert (line.run_id, line.task) == ("r1", "arithmetic")
    a, b = line.models
    assert (a.model, a.n_answers, a.graded) == ("fake/a", 2, False)
    assert (b.model, b.n_answers, b.graded, b.turns) == ("fake/b", 0, False, None)
