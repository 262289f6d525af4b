"""`proctor.runs.turns.resume_turn_run`: a stored turn run made ready to go on through its row
of `TURN_KINDS` (what `proctor run --resume RUN` of a dialogue or workflow run uses), refused
with a clear error when the store does not say how it ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.cli.dialogue import read_tree
from proctor.cli.workflow import read_workflow
from proctor.errors import ConfigError
from proctor.runs.turn_lifecycle import open_turn_run
from proctor.runs.turns import DIALOGUE, TURN_KINDS, WORKFLOW, resume_turn_run
from proctor.store import RunStore
from proctor.types import GenerationParams


def _workflow_run(results_dir: Path, settings: dict[str, object]) -> str:
    flow, _ = read_workflow("contract-review-en")
    with RunStore.open(results_dir) as store:
        return open_turn_run(
            store, kind=WORKFLOW, spec=flow.model_dump(mode="json", by_alias=True),
            model="local", lang=flow.lang, stages=[(s.id, s.id) for s in flow.steps],
            params=GenerationParams(), settings=settings,
        ).run_id  # fmt: skip


def test_a_workflow_run_that_does_not_say_how_its_tools_ran_is_refused(tmp_path: Path) -> None:
    run_id = _workflow_run(tmp_path, {"tools": "sometimes"})
    with pytest.raises(ConfigError, match="does not say how its tools were run"):
        resume_turn_run(tmp_path, run_id, WORKFLOW, 5.0)


def test_a_replayed_workflow_without_its_recording_is_refused(tmp_path: Path) -> None:
    run_id = _workflow_run(tmp_path, {"tools": "replay"})
    with pytest.raises(ConfigError, match="--replay --resume"):
        resume_turn_run(tmp_path, run_id, WORKFLOW, 5.0)


def test_a_run_of_samples_is_not_resumed_as_a_turn_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a dialogue or workflow run"):
        resume_turn_run(tmp_path, "r1", "arithmetic", 5.0)


def test_a_dialogue_run_goes_on_with_its_model_and_no_tools(tmp_path: Path) -> None:
    tree = read_tree("esg-acme-en")
    with RunStore.open(tmp_path) as store:
        run_id = open_turn_run(
            store, kind=DIALOGUE, spec=tree.model_dump(mode="json", by_alias=True),
            model="fake/m", lang=tree.lang, stages=[(s.id, s.ask) for s in tree.stages],
            params=GenerationParams(), settings={},
        ).run_id  # fmt: skip
    resumed = resume_turn_run(tmp_path, run_id, DIALOGUE, 5.0)
    assert (resumed.model, resumed.tools) == ("fake/m", "")
    assert TURN_KINDS[DIALOGUE].noun == "turn" and TURN_KINDS[WORKFLOW].noun == "step"
