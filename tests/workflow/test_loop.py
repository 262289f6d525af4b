"""Workflows under a hard budget: the token limit and the tool-call limit trip mid-run, a workflow
completes, required outputs are all-or-nothing, and a replay runs offline and matches."""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from proctor.calling.caller import ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import DatasetError
from proctor.providers.fake import FakeProvider, Reply
from proctor.tools.toolbox import ReplayMissing, ToolBox, call_key, standard_tools
from proctor.types import GenerationParams, Prompt
from proctor.workflow.loop import run_workflow
from proctor.workflow.spec import Workflow, parse_workflow

PARAMS = GenerationParams(timeout_s=5.0)
NOTE = "## Issue\nNo notice duty.\n## Revision\nAdd notice.\n## Legal basis\nArticle 590."
SUMMARY = '{"clause": "14", "conflict": true, "revision": "Require notice within 5 days."}'


def flow(**budget: Any) -> Workflow:
    spec = {
        "id": "t",
        "budget": {"max_tokens": 2000, "max_wall_s": 60, "max_tool_calls": 2, **budget},
        "steps": [
            {"id": "look", "kind": "tool", "tool": "lookup", "args": {"q": "590"}, "output": "law"},
            {
                "id": "note",
                "kind": "model",
                "prompt": "Law: {{law}}. Write the note.",
                "max_tokens": 100,
                "output": "note",
            },
            {
                "id": "again",
                "kind": "tool",
                "tool": "lookup",
                "args": {"q": "180"},
                "output": "def",
            },
            {
                "id": "sum",
                "kind": "model",
                "prompt": "Law: {{law}} {{def}}. JSON summary.",
                "max_tokens": 100,
                "output": "summary",
            },
        ],
        "required": [
            {
                "output": "note",
                "check": "headings",
                "headings": ["Issue", "Revision", "Legal basis"],
            },
            {"output": "summary", "check": "json", "keys": ["clause", "conflict", "revision"]},
        ],
    }
    return parse_workflow(json.dumps(spec), "t.json")


def model(note: str = NOTE, summary: str = SUMMARY) -> FakeProvider:
    def script(prompt: Prompt) -> Reply:
        return summary if "JSON summary" in prompt.messages[-1].content else note

    return FakeProvider("fake/m", script)


class Counting:
    def __init__(self) -> None:
        self.calls: list[Mapping[str, Any]] = []

    async def __call__(self, args: Mapping[str, Any]) -> str:
        self.calls.append(dict(args))
        return f"Article {args['q']}: text"


def caller(fake: FakeProvider) -> ModelCaller:
    return ModelCaller(fake, policy=RetryPolicy(max_attempts=1))


async def test_completes_when_every_step_runs_and_every_output_passes() -> None:
    tool = Counting()
    fake = model()
    result = await run_workflow(flow(), caller(fake), ToolBox("live", {"lookup": tool}), PARAMS)
    assert result.outcome == "complete" and result.score == 1.0, result
    assert [s.step for s in result.steps] == ["look", "note", "again", "sum"]
    assert result.tool_calls == 2 and len(tool.calls) == 2
    assert "Article 590: text" in fake.prompts[0].messages[-1].content
    assert result.tokens == sum(s.tokens for s in result.steps) > 0


async def test_one_failing_output_makes_it_incomplete() -> None:
    result = await run_workflow(
        flow(),
        caller(model(summary="conflict: yes")),
        ToolBox("live", {"lookup": Counting()}),
        PARAMS,
    )
    assert result.outcome == "invalid_output" and result.score == 0.0
    assert result.stopped_by is None
    assert result.failed_checks == ("summary: not JSON: Expecting value at line 1 column 1",)


async def test_token_limit_trips_mid_run_before_the_step_runs() -> None:
    fake = model()
    # The first model step fits (~20 prompt + 100 reply); the second would pass 125.
    result = await run_workflow(
        flow(max_tokens=125), caller(fake), ToolBox("live", {"lookup": Counting()}), PARAMS
    )
    assert result.outcome == "incomplete" and result.stopped_by == "tokens"
    assert (
        "step 'sum' not run: tokens limit" in result.reason and "> the limit 125" in result.reason
    )
    assert [s.step for s in result.steps] == ["look", "note", "again"]
    assert fake.calls == 1  # the breaker stopped the step: it was never asked
    assert result.tokens <= 125


async def test_tool_call_limit_trips() -> None:
    tool = Counting()
    fake = model()
    result = await run_workflow(
        flow(max_tool_calls=1), caller(fake), ToolBox("live", {"lookup": tool}), PARAMS
    )
    assert result.outcome == "incomplete" and result.stopped_by == "tool_calls"
    assert "step 'again' not run" in result.reason and "limit 1" in result.reason
    assert len(tool.calls) == 1 and fake.calls == 1
    assert "summary" not in result.outputs


async def test_wall_time_trips_on_the_clock() -> None:
    now = [0.0]

    class Slow(Counting):
        async def __call__(self, args: Mapping[str, Any]) -> str:
            now[0] += 61.0
            return await super().__call__(args)

    result = await run_workflow(
        flow(), caller(model()), ToolBox("live", {"lookup": Slow()}), PARAMS, clock=lambda: now[0]
    )
    assert result.stopped_by == "wall_time" and "step 'note' not run" in result.reason


def test_call_key_is_normalised() -> None:
    a = call_key("lookup", {"q": "590", "lang": "en"})
    assert a == call_key("lookup", {"lang": "en", "q": " 590 "})
    assert a != call_key("lookup", {"q": "591", "lang": "en"})
    assert a != call_key("search", {"q": "590", "lang": "en"})


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unplug the network: any socket connection or name lookup fails."""

    def refuse(*_a: object, **_k: object) -> None:
        raise OSError("network unplugged for this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


async def test_replay_runs_offline_and_matches_the_recorded_run(
    tmp_path: Path, no_network: None
) -> None:
    recording = tmp_path / "t.replay.jsonl"
    live = Counting()
    recorded = await run_workflow(
        flow(), caller(model()), ToolBox("record", {"lookup": live}, recording), PARAMS
    )
    assert len(live.calls) == 2 and len(recording.read_text().splitlines()) == 2

    async def broken(_args: Mapping[str, Any]) -> str:
        raise AssertionError("a replayed tool must not run")

    replayed = await run_workflow(
        flow(), caller(model()), ToolBox("replay", {"lookup": broken}, recording), PARAMS
    )
    assert replayed.outcome == recorded.outcome == "complete"
    assert replayed.outputs == recorded.outputs
    assert [s.tool_args for s in replayed.steps] == [s.tool_args for s in recorded.steps]
    # record mode asks a real tool only once per distinct call
    again = Counting()
    await run_workflow(
        flow(), caller(model()), ToolBox("record", {"lookup": again}, recording), PARAMS
    )
    assert again.calls == []


async def test_replay_of_an_unrecorded_call_fails_loudly(tmp_path: Path) -> None:
    recording = tmp_path / "empty.jsonl"
    recording.write_text("")
    with pytest.raises(ReplayMissing, match=r"no recorded answer for tool 'lookup'.*--record"):
        await run_workflow(flow(), caller(model()), ToolBox("replay", {}, recording), PARAMS)


def _shipped(name: str) -> tuple[Workflow, Path]:
    base = resources.files("proctor.datasets").joinpath("builtin", "workflows")
    text = base.joinpath(f"{name}.json").read_text(encoding="utf-8")
    return parse_workflow(text, name), Path(str(base.joinpath(f"{name}.replay.jsonl")))


@pytest.mark.parametrize(
    ("name", "replies"),
    [
        ("contract-review-en", {"headings": NOTE, "JSON": SUMMARY}),
        (
            "market-brief-zh",
            {
                "JSON": '{"公司": "星河科技", "正面": 1, "负面": 1}',
                "SWOT": "## 优势\n订单增长\n## 劣势\n交付延误\n## 机会\n储能\n## 威胁\n竞争",
            },
        ),
    ],
)
async def test_shipped_workflows_replay_offline(
    name: str, replies: dict[str, str], no_network: None
) -> None:
    flow_, recording = _shipped(name)

    def script(prompt: Prompt) -> Reply:
        text = prompt.messages[-1].content
        return next(reply for cue, reply in replies.items() if cue in text)

    result = await run_workflow(
        flow_, caller(FakeProvider("fake/m", script)), ToolBox("replay", {}, recording), PARAMS
    )
    assert result.outcome == "complete", result
    assert result.tool_calls == 2


def test_bad_workflow_files(tmp_path: Path) -> None:
    spec = json.loads(
        json.dumps(
            {
                "id": "x",
                "budget": {"max_tokens": 10, "max_wall_s": 1, "max_tool_calls": 0},
                "steps": [{"id": "a", "kind": "model", "prompt": "{{late}}", "output": "o"}],
                "required": [{"output": "o", "check": "nonempty"}],
            }
        )
    )
    with pytest.raises(DatasetError, match=r"x.json:\d+: .*uses \{\{late\}\} before"):
        parse_workflow(json.dumps(spec, indent=1), "x.json")
    spec["steps"][0]["prompt"] = "ok"
    spec["required"][0]["output"] = "nothing"
    with pytest.raises(DatasetError, match="made by no step"):
        parse_workflow(json.dumps(spec), "x.json")
    with pytest.raises(DatasetError, match="not a recorded tool call"):
        bad = tmp_path / "r.jsonl"
        bad.write_text("{}\n")
        ToolBox("replay", {}, bad)
    _ = standard_tools({})


async def test_the_tool_call_in_flight_is_cancelled_at_the_deadline() -> None:
    """The slow tool is not waited for: it is cancelled when the one deadline passes, the step
    is stored as cancelled, and the workflow ends incomplete by wall time."""
    import asyncio

    from proctor.store.turn_log import MemoryTurns

    seen: list[str] = []

    async def slow(_args: Mapping[str, Any]) -> str:
        seen.append("started")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        seen.append("finished")
        return "too late"

    log = MemoryTurns(model="fake/m")
    result = await run_workflow(
        flow(max_wall_s=0.3), caller(model()), ToolBox("live", {"lookup": slow}), PARAMS, log=log
    )
    assert seen == ["started", "cancelled"]
    assert result.outcome == "incomplete" and result.stopped_by == "wall_time"
    assert "step 'look' cancelled at the wall-time limit 0.3 s" in result.reason
    assert [t.status for t in log.turns.values()] == ["cancelled"]
    assert log.answered() == []


def test_a_schema_that_refers_outside_itself_is_refused() -> None:
    spec = {
        "id": "x",
        "budget": {"max_tokens": 10, "max_wall_s": 1, "max_tool_calls": 0},
        "steps": [{"id": "a", "kind": "model", "prompt": "p", "output": "o"}],
        "required": [
            {"output": "o", "check": "json", "schema": {"$ref": "https://example.invalid/s"}}
        ],
    }
    with pytest.raises(DatasetError, match="refers outside itself"):
        parse_workflow(json.dumps(spec, indent=1), "x.json")
    spec["required"][0]["schema"] = {"type": "object", "properties": {"k": {"type": "nope"}}}
    with pytest.raises(DatasetError, match="not a valid JSON Schema"):
        parse_workflow(json.dumps(spec, indent=1), "x.json")
