"""Bare vs calculator: the exact calculator, the tool wire format, the tool loop, and a run that
asks M and M+calculator on the same items and reports the gap."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from proctor.calling.caller import CallFailure, CallSuccess, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.cli.report import grade_and_report as _grade_and_report
from proctor.providers.fake import FakeProvider, Reply
from proctor.providers.local import LocalProvider
from proctor.providers.openai_compat import OpenAICompatProvider
from proctor.providers.registry import bare_model, make_provider, parse_model, with_calculator
from proctor.runs.ask import RunPlan, execute
from proctor.runs.report import calculator_pairs
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.tools.calculator import calculate
from proctor.tools.calling_loop import call_with_calculator, run_tool
from proctor.types import GenerationParams, Message, Prompt, Sample, ToolCall

BASE = "http://127.0.0.1:9/v1"
PARAMS = GenerationParams(timeout_s=5.0)
PROMPT = Prompt((Message("user", "What is 7 ÷ 2?"),), "B", "en")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 3", "5"),
        ("7 ÷ 2", "3.5"),
        ("1 / 3", "1/3"),
        ("−5 × 3", "-15"),
        ("0.1 + 0.2", "0.3"),
        ("-1 / 8", "-0.125"),
        ("-7 / 4", "-1.75"),
        ("2 / 6", "1/3"),
        ("(3 + 4) * 2", "14"),
        ("10 // 3", "3"),
        ("7 % 3", "1"),
        ("123456789 * 987654321", "121932631112635269"),
        ("1 / 1024", "0.0009765625"),
    ],
)
def test_calculate_is_exact(expression: str, expected: str) -> None:
    assert calculate(expression) == expected


@pytest.mark.parametrize("bad", ["", "   ", "abc", "1 / 0", "2 ** 3", "__import__('os')", "1e5"])
def test_calculate_reports_bad_input_as_error_text(bad: str) -> None:
    assert calculate(bad).startswith("error: ")


def test_run_tool_reads_json_arguments() -> None:
    assert run_tool(ToolCall("c1", "calculator", '{"expression": "6 * 7"}')) == "42"
    assert run_tool(ToolCall("c1", "calculator", "not json")).startswith("error: ")
    assert run_tool(ToolCall("c1", "calculator", '{"x": 1}')).startswith("error: ")
    assert run_tool(ToolCall("c1", "search", "{}")).startswith("error: unknown tool")


def test_model_strings_with_calculator() -> None:
    m = "openai-compat/x@http://127.0.0.1:8000/v1+calculator"
    assert with_calculator(m) and not with_calculator(bare_model(m))
    assert parse_model(m).base_url == "http://127.0.0.1:8000/v1"
    assert make_provider("fake/const:1+calculator").name == "fake/const:1+calculator"
    assert calculator_pairs(["a", "a+calculator", "b+calculator"]) == [("a", "a+calculator")]


# -- openai-compat wire format -------------------------------------------------------------------


class Recorder:
    def __init__(self, body: dict[str, object]) -> None:
        self.body = body
        self.requests: list[dict[str, object]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return httpx.Response(200, json=self.body)


TOOL_REPLY = {
    "model": "m",
    "choices": [
        {
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "calculator", "arguments": '{"expression":"7/2"}'},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5},
}


async def send(prompt: Prompt, body: dict[str, object]) -> tuple[object, Recorder]:
    rec = Recorder(body)
    provider = OpenAICompatProvider("n", "m", BASE, None, transport=httpx.MockTransport(rec))
    try:
        return await provider.complete(prompt, PARAMS), rec
    finally:
        await provider.aclose()


async def test_openai_compat_offers_the_calculator_and_parses_tool_calls() -> None:
    completion, rec = await send(
        Prompt(PROMPT.messages, "B", "en", tools=("calculator",)), TOOL_REPLY
    )
    sent = rec.requests[0]
    tools = sent["tools"]
    assert isinstance(tools, list) and tools[0]["function"]["name"] == "calculator"
    assert tools[0]["function"]["parameters"]["required"] == ["expression"]
    assert completion.finish_reason == "tool_calls"  # type: ignore[attr-defined]
    assert completion.tool_calls == (  # type: ignore[attr-defined]
        ToolCall("call_1", "calculator", '{"expression":"7/2"}'),
    )


async def test_openai_compat_plain_prompt_sends_no_tools_and_plain_messages() -> None:
    _, rec = await send(PROMPT, TOOL_REPLY)
    sent = rec.requests[0]
    assert "tools" not in sent
    assert sent["messages"] == [{"role": "user", "content": "What is 7 ÷ 2?"}]


async def test_openai_compat_serialises_the_tool_round_trip() -> None:
    call = ToolCall("call_1", "calculator", '{"expression":"7/2"}')
    prompt = Prompt(
        (
            *PROMPT.messages,
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "3.5", tool_call_id="call_1"),
        ),
        "B",
        "en",
        tools=("calculator",),
    )
    _, rec = await send(prompt, TOOL_REPLY)
    messages = rec.requests[0]["messages"]
    assert isinstance(messages, list)
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == '{"expression":"7/2"}'
    assert messages[1]["tool_calls"][0]["id"] == "call_1"
    assert messages[2] == {"role": "tool", "content": "3.5", "tool_call_id": "call_1"}


async def test_local_provider_refuses_tools(tmp_path: Path) -> None:
    gguf = tmp_path / "never-loaded.gguf"
    gguf.write_bytes(b"")
    provider = LocalProvider("local/" + str(gguf), gguf)
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=2))
    result = await call_with_calculator(caller, PROMPT, PARAMS)
    assert isinstance(result, CallFailure)
    assert "does not support tool calls" in result.error
    assert result.attempts == 1


# -- the tool loop -------------------------------------------------------------------------------


def calculator_user(prompt: Prompt) -> Reply:
    """Asks the calculator for the problem, then answers with what the tool said."""
    last = prompt.messages[-1]
    if last.role == "tool":
        return f"Final answer: {last.content}"
    problem = next(
        m.content.rsplit("Problem: ", 1)[-1] for m in prompt.messages if "Problem: " in m.content
    )
    return ToolCall("call_1", "calculator", json.dumps({"expression": problem}))


async def test_loop_answers_the_tool_call_and_returns_the_final_reply() -> None:
    provider = FakeProvider("fake+calculator", calculator_user)
    caller = ModelCaller(provider)
    prompt = Prompt((Message("user", "Problem: 7 ÷ 2"),), "B", "en")
    result = await call_with_calculator(caller, prompt, PARAMS)
    assert isinstance(result, CallSuccess)
    assert result.completion.text == "Final answer: 3.5"
    assert result.attempts == 2
    second = provider.prompts[1]
    assert second.tools == ("calculator",)
    assert second.messages[-2].tool_calls[0].name == "calculator"
    assert second.messages[-1] == Message("tool", "3.5", tool_call_id="call_1")


async def test_loop_stops_after_max_rounds() -> None:
    call = ToolCall("c", "calculator", '{"expression": "1+1"}')
    provider = FakeProvider("f", call)
    result = await call_with_calculator(ModelCaller(provider), PROMPT, PARAMS, max_rounds=2)
    assert isinstance(result, CallSuccess)
    assert provider.calls == 3
    assert result.completion.finish_reason == "tool_calls"


# -- a run: bare vs calculator -------------------------------------------------------------------

SAMPLES = tuple(
    Sample(id=f"q{i}", input=f"{i} × 37 + 100", target=str(i * 37 + 100), category="mix")
    for i in range(4)
)


async def test_run_reports_the_gap_per_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare, calc = "fake/m", "fake/m+calculator"
    plan = RunPlan(
        task=TASK,
        samples=SAMPLES,
        dataset_hash="sha256:calc-test",
        generator_version="test",
        models=(bare, calc),
        variant="B",
        lang="en",
        params=PARAMS,
        results_dir=tmp_path / "results",
    )
    providers = {
        bare: FakeProvider(bare, "Final answer: 100"),
        calc: FakeProvider(calc, calculator_user),
    }
    outcome = await execute(plan, providers=providers)
    capsys.readouterr()
    _grade_and_report(outcome.run_id, plan.results_dir)
    out = capsys.readouterr().out
    gap = re.compile(r"\bm\s+25\.0 %\s+100\.0 %\s+\+75\.0")  # bare, with calculator, gap
    assert "Bare vs calculator" in out and gap.search(out), out
    with RunStore.open(plan.results_dir) as store:
        run_dir = store.run_dir(outcome.run_id)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "bare vs calculator accuracy" in html and 'id="calculator"' in html
    summary = (run_dir / "summary.md").read_text(encoding="utf-8")
    assert "| fake/m | 25.0 % | 100.0 % | +75.0 |" in summary
    document = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    assert document["calculator"]["fake/m"]["accuracy"] == 1.0
