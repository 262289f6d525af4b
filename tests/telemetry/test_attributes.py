"""A stored answer as span attributes (GenAI semantic conventions): what must NOT be there
first (a count nobody reported, text nobody asked for, a key), then what must."""

from __future__ import annotations

import json

from proctor._util.redact import register_secret
from proctor.telemetry.attributes import (
    call_attributes,
    call_name,
    error_type,
    grade_attributes,
    sample_attributes,
    session_attributes,
)
from proctor.types import GenerationParams, Message, Prompt, Record, Score, ToolCall, Usage

KEY = "sk-attr-Hb7Nq2Lx9Vc4Mz6Pw3Rt8Ks5"
MODEL = "openai-compat/qwen@http://127.0.0.1:8080/v1"
PARAMS = GenerationParams(temperature=0.7, max_tokens=64, seed=3)
PROMPT = Prompt((Message("system", "Answer briefly."), Message("user", "What is 3+4?")), "A", "en")


def record(**changes: object) -> Record:
    fields: dict[str, object] = dict(
        run_id="r1", model=MODEL, sample_id="q1", status="ok", text="The answer is 7.",
        finish_reason="stop", usage=Usage(12, 5), latency_s=0.5, attempts=1,
        prompt_variant="A", lang="en", reported_model="qwen2.5-7b",
    )  # fmt: skip
    fields.update(changes)
    return Record(**fields)  # type: ignore[arg-type]


def test_an_unknown_token_count_is_left_out_never_sent_as_0() -> None:
    found = call_attributes(record(usage=Usage(None, 5)), PARAMS, PROMPT, False)
    assert "gen_ai.usage.input_tokens" not in found
    assert found["gen_ai.usage.output_tokens"] == 5


def test_a_failed_call_has_its_error_type_and_no_counts_reply_or_reply_model() -> None:
    failed = record(status="call_failed", text="", usage=Usage(), reported_model="",
                    error="RateLimited: HTTP 429: slow down", finish_reason="unknown")  # fmt: skip
    found = call_attributes(failed, PARAMS, PROMPT, True)
    assert found["error.type"] == "RateLimited"
    for absent in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                   "gen_ai.response.model", "gen_ai.response.finish_reasons",
                   "gen_ai.output.messages"):  # fmt: skip
        assert absent not in found
    assert "gen_ai.input.messages" in found  # what was sent, when content is asked for


def test_an_error_that_names_no_type_is_other() -> None:
    assert error_type("the server said: no") == "_OTHER"
    assert error_type("") == "_OTHER"
    assert error_type("BatchError: expired") == "BatchError"


def test_without_content_no_prompt_or_reply_text() -> None:
    found = call_attributes(record(), PARAMS, PROMPT, False)
    text = json.dumps(found)
    assert "3+4" not in text and "The answer is" not in text and "Answer briefly" not in text


def test_content_is_redacted_of_the_keys_of_this_process() -> None:
    register_secret(KEY)
    prompt = Prompt((Message("user", f"my key is {KEY}"),
                     Message("assistant", "", (ToolCall("c1", "calc", f'{{"k": "{KEY}"}}'),)),
                     Message("tool", f"echo {KEY}", tool_call_id="c1")), "A", "en")  # fmt: skip
    found = call_attributes(record(text=f"Echo: {KEY}"), PARAMS, prompt, True)
    assert KEY not in json.dumps(found)
    sent = json.loads(found["gen_ai.input.messages"])
    assert sent[0] == {"role": "user", "parts": [{"type": "text",
                                                  "content": "my key is [redacted]"}]}  # fmt: skip
    assert sent[1]["parts"][0]["type"] == "tool_call" and sent[1]["parts"][0]["name"] == "calc"
    assert sent[2]["parts"][0] == {"type": "tool_call_response", "id": "c1",
                                   "response": "echo [redacted]"}  # fmt: skip
    (reply,) = json.loads(found["gen_ai.output.messages"])
    assert reply == {"role": "assistant", "finish_reason": "stop",
                     "parts": [{"type": "text", "content": "Echo: [redacted]"}]}  # fmt: skip


def test_a_call_in_the_genai_conventions() -> None:
    found = call_attributes(record(), PARAMS, PROMPT, False)
    assert found == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai-compat",
        "gen_ai.system": "openai-compat",
        "gen_ai.request.model": "qwen",
        "gen_ai.request.temperature": 0.7,
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.seed": 3,
        "gen_ai.response.model": "qwen2.5-7b",
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 5,
        "server.address": "127.0.0.1",
        "server.port": 8080,
        "proctor.model": MODEL,
        "proctor.item.id": "q1",
        "proctor.epoch": 0,
        "proctor.attempts": 1,
    }
    assert call_name(MODEL) == "chat qwen"


def test_the_provider_is_the_model_strings_kind() -> None:
    anthropic = call_attributes(record(model="anthropic/claude-x"), PARAMS, None, False)
    assert anthropic["gen_ai.provider.name"] == "anthropic"
    assert anthropic["server.address"] == "api.anthropic.com"
    fake = call_attributes(record(model="fake/const:7"), PARAMS, None, False)
    assert fake["gen_ai.provider.name"] == "fake" and "server.address" not in fake
    unknown = call_attributes(record(model="gone-plugin"), PARAMS, None, False)
    assert unknown["gen_ai.provider.name"] == "_OTHER"
    assert unknown["gen_ai.request.model"] == "gone-plugin"


def test_a_sample_has_its_grade_only_once_graded() -> None:
    stored = sample_attributes("r1", "gsm8k", record())
    assert "proctor.grade" not in stored
    assert stored["proctor.run.id"] == "r1" and stored["proctor.task"] == "gsm8k"
    graded = grade_attributes(Score("wrong", "exact_number", "no"))
    assert (graded["proctor.grade"], graded["proctor.rule"]) == ("wrong", "exact_number")


def test_a_session_counts_every_outcome_and_an_absent_one_is_0() -> None:
    found = session_attributes({"correct": 2, "call_failed": 1})
    assert found["proctor.outcome.correct"] == 2 and found["proctor.outcome.call_failed"] == 1
    assert found["proctor.outcome.wrong"] == 0 and found["proctor.outcome.unscored"] == 0
    assert found["proctor.graded"] == 3
    assert len([k for k in found if k.startswith("proctor.outcome.")]) == 8
