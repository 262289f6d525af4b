"""The dialogue case table (`cases/dialogue_cases.json`), each case through the public path:
`proctor dialogue TREE -m openai-compat/…@127.0.0.1` against a scripted loopback server that
answers each stage as the case says, then the graded dialogue in the run's results.json and
the exit code are read, and
`proctor score RUN` re-grades the stored turns to the same verdict without calling anything.

Every class of the issue has rows in both languages: real contradictions (digits, number words,
full-width forms, Chinese numerals and 万, units, ranges, self-corrections), false ones (scale
words, entities, tolerance), follow-ups graded against their own question, branching on ranges,
words and hedges, unreadable values (unscored, never consistent), failed calls."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.cli.dialogue import read_tree
from proctor.dialogue.tree import PLACEHOLDER, DialogueTree
from support.stub.scripted import Scripted, ScriptedServer, run_scripted
from support.turn_results import graded_result

HERE = Path(__file__).parent / "cases"
CASES = json.loads((HERE / "dialogue_cases.json").read_text(encoding="utf-8"))["cases"]
HONEST = {
    "esg-acme-en": {
        "facts": "Receivable days: 120",
        "compare": "Margin gap: 15 percentage points",
        "precise": "Gain: 18.255 million USD",
        "open": "1. Raise prices 2. Cut input costs 3. Automate",
        "recommend": "Receivable days: 120. Review the collection policy first.",
    },
    "revenue-en.json": {
        "revenue": "Revenue: 1.2 billion USD",
        "risk": "Main risk: supply chain concentration",
        "supply": "Dual sourcing. Revenue: 1.2 billion USD",
        "governance": "Add independent directors. Revenue: 1.2 billion USD",
        "growth": "Growth: 20%",
        "fast": "Competition. Revenue: 1.2 billion USD",
    },
    "lithium-zh": {
        "facts": "产量：180000吨",
        "growth": "增长：23.3%",
        "precise": "预测：221940吨",
        "open": "1. 需求 2. 价格 3. 政策",
        "advice": "产量：180000吨。建议关注盐湖提锂项目。",
    },
}
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
CURRENT: dict[str, Any] = {}


def stage_of(tree: DialogueTree, asked: str) -> str:
    """The stage whose question (placeholders filled with anything) is `asked`."""
    for stage in tree.stages:
        parts = [re.escape(p) for p in PLACEHOLDER.split(stage.ask)[::2]]
        if re.fullmatch(".+?".join(parts), asked, re.DOTALL):
            return stage.id
    raise AssertionError(f"no stage asks {asked!r}")


def tree_ref(name: str) -> str:
    """A shipped tree by name, or a test tree of `cases/` by file name."""
    return str(HERE / name) if name.endswith(".json") else name


def script(messages: list[dict[str, Any]]) -> Scripted:
    case = CURRENT["case"]
    tree = read_tree(tree_ref(case["tree"]))
    stage = stage_of(tree, messages[-1]["content"])
    reply = case["replies"].get(stage, HONEST[case["tree"]][stage])
    return Scripted(**reply) if isinstance(reply, dict) else Scripted(reply)


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with run_scripted(script) as handle:
        yield handle


def _check(doc: dict[str, Any], want: dict[str, Any]) -> None:
    assert doc["status"] == want.get("status", "complete"), doc["reason"]
    if "path" in want:
        assert doc["path"] == want["path"], doc["path"]
    if "consistency" in want:
        expected = None if want["consistency"] == "unscored" else want["consistency"]
        assert doc["consistency"] == expected, (
            doc["consistency"],
            doc["contradictions"],
            doc["consistency_unscored"],
        )
    if "contradictions" in want:
        assert len(doc["contradictions"]) == want["contradictions"], doc["contradictions"]
    if "contradiction" in want:
        assert any(want["contradiction"] in c for c in doc["contradictions"]), doc["contradictions"]
    if "consistency_unscored" in want:
        assert any(want["consistency_unscored"] in u for u in doc["consistency_unscored"])
    turns = {t["stage"]: t for t in doc["turns"]}
    for stage, score in want.get("scores", {}).items():
        assert turns[stage]["score"] == score, (stage, turns[stage])
    for stage, needle in want.get("asked", {}).items():
        assert needle in turns[stage]["asked"], turns[stage]["asked"]
    for stage, needle in want.get("unscored", {}).items():
        said = turns[stage]["unscored"] + " ".join(doc["consistency_unscored"])
        assert needle in said, (stage, turns[stage]["unscored"], doc["consistency_unscored"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_dialogue_case(
    case: dict[str, Any], server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in PROXIES:
        monkeypatch.delenv(var, raising=False)
    CURRENT["case"] = case
    results = tmp_path / "results"
    args = [
        "dialogue",
        tree_ref(case["tree"]),
        "-m",
        server.model,
        "-r",
        str(results),
        "--max-attempts",
        "1",
    ]
    got = CliRunner().invoke(app, args)
    want = case["expect"]
    assert got.exception is None or isinstance(got.exception, SystemExit), got.output
    assert got.exit_code == want.get("exit", 0), got.output
    doc = graded_result(results)
    _check(doc, want)
    # re-graded from the store with the current rules: the same verdict, nothing asked
    asked = len(server.asked)
    again = CliRunner().invoke(app, ["score", doc["run_id"], "-r", str(results)])
    assert again.exit_code == want.get("exit", 0), again.output  # the command's own code
    assert len(server.asked) == asked
    regraded = graded_result(results)
    for key in ("status", "path", "consistency", "contradictions", "stage_mean"):
        assert regraded[key] == doc[key], key


def test_the_table_covers_both_languages_and_every_class() -> None:
    assert len(CASES) >= 40
    assert {c["tree"] for c in CASES} >= {"esg-acme-en", "lithium-zh"}
    verdicts = {str(c["expect"].get("consistency")) for c in CASES}
    assert {"1.0", "0.0", "unscored"} <= verdicts
    assert any(c["expect"].get("status") == "call_failed" for c in CASES)
    assert any("asked" in c["expect"] for c in CASES)
