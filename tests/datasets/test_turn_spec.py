"""The head and the error reading every turn run's spec shares (`datasets/turn_spec.py`),
through both kinds' parsers: a bad file is a DatasetError naming file, line and field."""

from __future__ import annotations

import pytest

from proctor.datasets.turn_spec import TurnSpec, read_json
from proctor.dialogue.tree import DialogueTree, parse_tree
from proctor.errors import DatasetError
from proctor.workflow.spec import Workflow, parse_workflow


def test_both_kinds_start_with_the_same_head() -> None:
    assert issubclass(DialogueTree, TurnSpec) and issubclass(Workflow, TurnSpec)
    head = list(TurnSpec.model_fields)
    assert list(DialogueTree.model_fields)[: len(head)] == head
    assert list(Workflow.model_fields)[: len(head)] == head


def test_text_that_is_not_json_names_its_line() -> None:
    with pytest.raises(DatasetError) as e:
        read_json('{\n  "id": "x",\n  oops\n}', "t.json")
    assert e.value.line == 3 and "not JSON" in str(e.value)


@pytest.mark.parametrize("parse", [parse_tree, parse_workflow])
def test_an_empty_id_is_refused_by_both(parse: object) -> None:
    text = '{\n  "id": ""\n}'
    with pytest.raises(DatasetError) as e:
        parse(text, "spec.json")  # type: ignore[operator]
    assert e.value.file == "spec.json" and e.value.field == "id"


def test_a_workflow_error_naming_a_step_points_at_its_line() -> None:
    text = (
        '{"id": "w", "budget": {"max_tokens": 100, "max_wall_s": 10, "max_tool_calls": 1},\n'
        ' "steps": [\n'
        '  {"id": "a", "kind": "model", "prompt": "uses {{nothing}}", "output": "out"}\n'
        ' ],\n'
        ' "required": [{"output": "out", "check": "nonempty"}]}'
    )
    with pytest.raises(DatasetError) as e:
        parse_workflow(text, "w.json")
    assert "before any step makes it" in str(e.value) and e.value.line == 3
