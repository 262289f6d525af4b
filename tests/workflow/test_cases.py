"""The workflow case table (`cases/workflow_cases.json`), each case through the public path:
`proctor workflow FILE -m openai-compat/…@127.0.0.1` against a scripted loopback server, then
the graded workflow in the run's results.json, its stored steps and the exit code are read.

Every limit is tried just under, at and over; slow servers, slow tools, no usage, call
failures and output validation each have their rows, with the fair verdict."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.calling.rate_limit import estimate_tokens
from proctor.cli.app import app
from proctor.runs.turns import regrade_workflow
from proctor.store import RunStore
from proctor.tools.calculator import calculate
from proctor.workflow.spec import parse_workflow, render
from support.stub.scripted import Scripted, ScriptedServer, run_scripted
from support.turn_results import graded_result

HERE = Path(__file__).parent / "cases"
BASE = json.loads((HERE / "review.json").read_text(encoding="utf-8"))
CASES = json.loads((HERE / "workflow_cases.json").read_text(encoding="utf-8"))["cases"]
NOTE = "## Issue\nNo notice duty.\n## Revision\nAdd a notice duty.\n## Legal basis\nArticle 590."
SUMMARY = '{"clause": "14", "conflict": true, "revision": "Require notice within 5 days."}'
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _reply(spec: dict[str, Any] | None, default: str) -> Scripted:
    spec = dict(spec or {})
    tokens = spec.pop("tokens", None)
    return Scripted(**{"text": default, **spec, "tokens": tuple(tokens) if tokens else None})


def _need(flow: dict[str, Any], case: dict[str, Any], step_id: str) -> int:
    """The tokens the budget must hold for `step_id` to run: what earlier model steps used plus
    the step's prompt estimate and its max_tokens (the meter's own rule, from the file)."""
    parsed = parse_workflow(json.dumps(flow), "case.json")
    outputs: dict[str, str] = {}
    used = 0
    for step in parsed.steps:
        if step.kind == "tool":
            outputs[step.output] = calculate(str(step.args.get("expression", "")))
            continue
        prompt = estimate_tokens(render(step.prompt, outputs))
        if step.id == step_id:
            return used + prompt + step.max_tokens
        reply = case.get(step.id) or {}
        tokens = reply.get("tokens")
        used += sum(tokens) if tokens else prompt + estimate_tokens(reply.get("text", NOTE))
        outputs[step.output] = reply.get("text", NOTE)
    raise AssertionError(step_id)


def _flow(case: dict[str, Any], root: str) -> dict[str, Any]:
    flow = json.loads(json.dumps(BASE))
    if "calc" in case:
        flow["steps"][0]["args"]["expression"] = case["calc"]
    extra = json.loads(json.dumps(case.get("steps_before", []) + case.get("steps_after", [])))
    for step in extra:
        for k, v in step["args"].items():
            step["args"][k] = v.replace("{root}", root)
    before = extra[: len(case.get("steps_before", []))]
    after = extra[len(before) :]
    flow["steps"] = before + flow["steps"] + after
    budget = dict(case.get("budget", {}))
    tokens = budget.get("max_tokens")
    if isinstance(tokens, str):
        m = re.fullmatch(r"need:(\w+)([+-]\d+)?", tokens)
        assert m, tokens
        budget["max_tokens"] = _need(flow, case, m.group(1)) + int(m.group(2) or 0)
    flow["budget"].update(budget)
    return flow


CURRENT: dict[str, Any] = {}
"""The case being walked: what the scripted server answers."""


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    current = CURRENT

    def script(messages: list[dict[str, Any]]) -> Scripted:
        asked = messages[-1]["content"]
        case = current["case"]
        if asked.startswith("[note]"):
            return _reply(case.get("note"), NOTE)
        return _reply(case.get("summary"), SUMMARY)

    with run_scripted(script) as handle:
        yield handle


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_workflow_case(
    case: dict[str, Any], server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in PROXIES:
        monkeypatch.delenv(var, raising=False)
    CURRENT["case"] = case
    root = server.base_url.removesuffix("/v1")
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(_flow(case, root)), encoding="utf-8")
    asked_before = len(server.asked)
    results = tmp_path / "results"
    args = ["workflow", str(path), "-m", server.model, "-r", str(results), *case.get("args", [])]
    got = CliRunner().invoke(app, args)
    want = case["expect"]
    assert got.exception is None or isinstance(got.exception, SystemExit), got.output
    assert got.exit_code == want["exit"], got.output
    doc = graded_result(results)
    assert doc["outcome"] == want["outcome"], doc
    assert doc["stopped_by"] == want.get("stopped_by"), doc
    assert want.get("reason", "") in doc["reason"], doc["reason"]
    for needle in want.get("checks", []):
        assert any(needle in c for c in doc["failed_checks"]), (needle, doc["failed_checks"])
    if "steps" in want:
        assert len(doc["steps"]) == want["steps"], doc["steps"]
    assert bool(doc["tokens_estimated"]) == want.get("estimated", False), doc
    if want.get("estimated"):
        assert "estimated by proctor" in doc["tokens_note"]
    asked = [a.split("]")[0].strip("[") for a in server.asked[asked_before:]]
    for step in want.get("not_asked", []):
        assert step not in asked, asked
    assert doc["score"] == {"complete": 1.0, "call_failed": None}.get(doc["outcome"], 0.0)
    # the stored steps re-grade to the same verdict, calling nothing
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
        again = regrade_workflow(store, row.run_id)
    assert (again.outcome, again.stopped_by, again.failed_checks) == (
        doc["outcome"],
        doc["stopped_by"],
        tuple(doc["failed_checks"]),
    ), again
    if doc["outcome"] != "incomplete" or doc["stopped_by"] != "wall_time":
        assert again.reason == doc["reason"]
    assert again.tokens == doc["tokens"]


def test_the_table_covers_every_class() -> None:
    outcomes = {c["expect"]["outcome"] for c in CASES}
    assert outcomes == {"complete", "call_failed", "incomplete", "invalid_output"}
    limits = {c["expect"].get("stopped_by") for c in CASES}
    assert {"tokens", "wall_time", "tool_calls"} <= limits
    ids = {c["id"] for c in CASES}
    at_under_over = {
        "tokens-at-limit",
        "tokens-under-limit",
        "tokens-over-limit",
        "tool-calls-at",
        "tool-calls-under",
        "tool-calls-over",
        "wall-under",
        "wall-slow-server",
    }
    assert at_under_over <= ids
    assert len(CASES) >= 25
