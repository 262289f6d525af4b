"""Staged dialogues with scripted models: a contradiction is caught, the branch follows the
earlier answer, and bad tree files are refused with their line."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from proctor.calling.caller import ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.dialogue.facts import FactGraph, extract_facts
from proctor.dialogue.loop import run_dialogue
from proctor.dialogue.tree import DialogueTree, parse_tree
from proctor.errors import DatasetError, Transient
from proctor.providers.fake import FakeProvider, Reply
from proctor.types import GenerationParams, Prompt

PARAMS = GenerationParams(timeout_s=5.0)


def shipped(name: str) -> tuple[str, DialogueTree]:
    text = (
        resources.files("proctor.datasets")
        .joinpath("builtin", "dialogues", name)
        .read_text(encoding="utf-8")
    )
    return text, parse_tree(text, name)


_, ACME = shipped("esg-acme-en.json")


def by_stage(replies: dict[str, str]) -> Callable[[Prompt], Reply]:
    """Answer by the stage whose question is the last user turn."""

    def script(prompt: Prompt) -> Reply:
        asked = prompt.messages[-1].content
        for stage in ACME.stages:
            if asked.startswith(stage.ask.split("{{")[0][:60]):
                return replies[stage.id]
        raise AssertionError(asked)

    return script


async def run(replies: dict[str, str]) -> tuple[FakeProvider, object]:
    fake = FakeProvider("fake/script", by_stage(replies))
    caller = ModelCaller(fake, policy=RetryPolicy(max_attempts=1))
    return fake, await run_dialogue(ACME, caller, PARAMS)


HONEST = {
    "facts": "Receivable days: 120",
    "compare": "Margin gap: 15 percentage points",
    "precise": "Gain: 18.26 million USD",
    "open": "1. Raise prices 2. Cut input costs 3. Automate",
    "recommend": "Receivable days: 120. Review the collection policy first.",
}


async def test_consistent_model_scores_full_and_sends_history() -> None:
    fake, result = await run(HONEST)
    assert result.status == "complete"  # type: ignore[attr-defined]
    assert result.path == ("facts", "compare", "precise", "recommend")  # type: ignore[attr-defined]
    assert result.consistency == 1.0 and result.contradictions == ()  # type: ignore[attr-defined]
    assert result.stage_mean == 1.0  # type: ignore[attr-defined]
    last = fake.prompts[-1].messages
    assert [m.role for m in last] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert last[2].content == "Receivable days: 120"


async def test_model_contradicting_its_earlier_number_is_caught() -> None:
    _, result = await run({**HONEST, "recommend": "Receivable days: 90. Tighten credit terms."})
    r = result
    assert r.contradictions and "turn 4" in r.contradictions[0]  # type: ignore[attr-defined]
    assert "'90'" in r.contradictions[0] and "'120'" in r.contradictions[0]  # type: ignore[attr-defined]
    assert "turn 1" in r.contradictions[0]  # type: ignore[attr-defined]
    assert r.consistency == 0.0  # type: ignore[attr-defined]
    last = r.turns[-1]  # type: ignore[attr-defined]
    assert last.score == 0.0 and any("halved" in m for m in last.missed)
    assert last.contradictions == r.contradictions  # type: ignore[attr-defined]


async def test_branch_depends_on_the_earlier_answer() -> None:
    fake, with_number = await run(HONEST)
    precise_turn = fake.prompts[2].messages[-1].content
    assert "by 15 percentage points" in precise_turn  # the model's own number, filled in
    _, without = await run({**HONEST, "compare": "ACME trails the industry noticeably."})
    assert with_number.path[2] == "precise"  # type: ignore[attr-defined]
    assert without.path == ("facts", "compare", "open", "recommend")  # type: ignore[attr-defined]
    assert without.turns[1].why_next == "otherwise"  # type: ignore[attr-defined]
    assert without.turns[1].score == 0.0  # type: ignore[attr-defined]


async def test_failed_call_ends_the_dialogue_as_call_failed() -> None:
    fake = FakeProvider("fake/down", Transient("connection reset"))
    caller = ModelCaller(fake, policy=RetryPolicy(max_attempts=1))
    result = await run_dialogue(ACME, caller, PARAMS)
    assert result.status == "call_failed" and "connection reset" in result.reason
    assert result.turns == ()


def test_shipped_trees_load() -> None:
    for name in ("esg-acme-en.json", "lithium-zh.json"):
        _, tree = shipped(name)
        assert 4 <= len(tree.stages) <= 6


def test_fact_graph_tolerance_and_text() -> None:
    tree = DialogueTree.model_validate(
        {
            "id": "t",
            "facts": [{"entity": "x", "attribute": "n", "pattern": r"n=([\d.,]+)"}],
            "consistency_tolerance": 0.01,
            "stages": [{"id": "a", "ask": "Give n as n=N."}],
        }
    )
    graph = FactGraph(tree)
    assert graph.consistency is None  # nothing restated: nothing checked
    graph.add(*extract_facts("n=1,000", tree, 1, "a"))
    assert graph.add(*extract_facts("n=1005", tree, 2, "b")) == ()
    assert len(graph.add(*extract_facts("n=1100", tree, 3, "c"))) == 1
    assert graph.consistency == 0.5


def _bad(tree: dict[str, object], tmp_path: Path) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tree, indent=2, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DatasetError) as e:
        parse_tree(path.read_text(encoding="utf-8"), str(path))
    return str(e.value)


def test_bad_trees_are_refused_with_a_line(tmp_path: Path) -> None:
    base = json.loads(shipped("esg-acme-en.json")[0])
    leaning = json.loads(json.dumps(base))
    leaning["stages"][3]["ask"] = "As above, list three ways."
    msg = _bad(leaning, tmp_path)
    assert "self-contained" in msg and "stages.3.ask" in msg
    line = msg.split(":")[1]
    assert line.isdigit() and int(line) > 20
    zh = json.loads(json.dumps(base))
    zh["stages"][0]["ask"] = "如上所述，请给出数字。"
    assert "self-contained" in _bad(zh, tmp_path)
    dangling = json.loads(json.dumps(base))
    dangling["stages"][2]["next"] = "nowhere"
    assert "'nowhere' is not a stage" in _bad(dangling, tmp_path)
    undeclared = json.loads(json.dumps(base))
    undeclared["stages"][2]["ask"] = "Use {{acme.unknown}} now."
    assert "not a declared fact" in _bad(undeclared, tmp_path)
    too_long = json.loads(json.dumps(base))
    too_long["stages"] = [dict(base["stages"][3], id=f"s{i}") for i in range(8)]
    assert "at most 6" in _bad(too_long, tmp_path)
    bad_regex = json.loads(json.dumps(base))
    bad_regex["facts"][0].pop("label")
    bad_regex["facts"][0]["pattern"] = "no group here"
    assert "group" in _bad(bad_regex, tmp_path)
    with pytest.raises(DatasetError, match="not JSON"):
        parse_tree("{", "x.json")


def test_yaml_tree_with_line_of_the_bad_stage() -> None:
    pytest.importorskip("yaml")
    text = """id: y
facts:
  - {entity: a, attribute: n, label: "n"}
stages:
  - id: one
    ask: Give n as n=N.
  - id: two
    ask: As above, give n again.
"""
    with pytest.raises(DatasetError) as e:
        parse_tree(text, "t.yaml")
    assert str(e.value).startswith("t.yaml:8: field 'stages.1.ask'")
    good = parse_tree(text.replace("As above, give", "Give"), "t.yaml")
    assert [s.id for s in good.stages] == ["one", "two"]


def test_formulas_are_checked_at_load(tmp_path: Path) -> None:
    base = json.loads(shipped("esg-acme-en.json")[0])
    precise = next(i for i, s in enumerate(base["stages"]) if s["id"] == "precise")
    bad = json.loads(json.dumps(base))
    bad["stages"][precise]["expect"][0]["formula"] = "121.7 * {{acme.margin_gap}} /"
    assert "bad formula" in _bad(bad, tmp_path)
    unbound = json.loads(json.dumps(base))
    unbound["stages"][precise]["expect"][0]["formula"] = "{{acme.receivable_days}} * 2"
    assert "does not ask with" in _bad(unbound, tmp_path)
    code = json.loads(json.dumps(base))
    code["stages"][precise]["expect"][0]["formula"] = "__import__('os').getcwd()"
    assert "bad formula" in _bad(code, tmp_path)
