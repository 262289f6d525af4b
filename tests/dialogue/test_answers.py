"""Free-text answers graded through the dialogue fact graph (issue 20's part that belongs to the
dialogues): each row is a reply to one stage of `cases/answers-tree.json`, read by the shared
number reader into a fact, and graded by the stage's expectation: correct (met), wrong (missed)
or unscored (an ambiguous reading, with why). Issue 20's own table is in it, every row right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.cli.dialogue import read_tree
from proctor.dialogue.facts import extract_facts
from proctor.dialogue.flow import score_stage

HERE = Path(__file__).parent / "cases"
TREE = read_tree(str(HERE / "answers-tree.json"))
ROWS = json.loads((HERE / "fact_answers.json").read_text(encoding="utf-8"))["rows"]


def _verdict(stage_id: str, reply: str) -> tuple[str, str]:
    stage = TREE.stage(stage_id)
    wanted = {e.fact for e in stage.expect}
    facts, corrections = extract_facts(reply, TREE, 1, stage_id)
    mine = tuple(f for f in facts if f.key in wanted)
    graded = score_stage(stage, mine, corrections)
    if graded.score is None:
        return "unscored", graded.unscored
    return ("correct" if graded.score == 1.0 else "wrong"), "; ".join(graded.missed)


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['stage']}:{r['reply']}" for r in ROWS])
def test_free_text_answer(row: dict[str, str]) -> None:
    verdict, why = _verdict(row["stage"], row["reply"])
    assert verdict == row["verdict"], (row, why)
    if verdict == "unscored":
        assert why


def test_the_table() -> None:
    assert len(ROWS) >= 60
    verdicts = [r["verdict"] for r in ROWS]
    assert {"correct", "wrong", "unscored"} == set(verdicts)
    assert sum(1 for r in ROWS if r["why"] == "issue 20's table") == 9
