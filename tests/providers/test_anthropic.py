"""The Anthropic adapter, run for real against a faked transport (httpx.MockTransport), and its
model string in the registry."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from proctor.errors import AuthError, BadRequest, ConfigError, RateLimited, Transient
from proctor.providers.anthropic import ANTHROPIC_VERSION, AnthropicProvider
from proctor.providers.registry import make_provider
from proctor.types import Completion, GenerationParams, Message, Prompt

KEY = "sk-ant-test-SECRET-9876"
BASE = "http://127.0.0.1:9/v1"
PROMPT = Prompt(
    messages=(
        Message("system", "You are terse."),
        Message("system", "Answer with a number."),
        Message("user", "What is 6 * 7?"),
        Message("assistant", "Thinking."),
        Message("user", "Go on."),
    ),
    variant="B",
    lang="en",
)
PARAMS = GenerationParams(temperature=0.0, max_tokens=77, timeout_s=5.0)

Handler = Callable[[httpx.Request], httpx.Response]


def ok_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-served",
        "content": [{"type": "text", "text": "42"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 13, "output_tokens": 2},
    }
    body.update(overrides)
    return body


class Recorder:
    def __init__(self, respond: Handler) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request)


async def complete(
    respond: Handler, prompt: Prompt = PROMPT, params: GenerationParams = PARAMS
) -> tuple[Completion, Recorder]:
    rec = Recorder(respond)
    provider = AnthropicProvider(
        "anthropic/claude-x", "claude-x", KEY, base_url=BASE, transport=httpx.MockTransport(rec)
    )
    try:
        return await provider.complete(prompt, params), rec
    finally:
        await provider.aclose()


async def failure(respond: Handler) -> BaseException:
    try:
        await complete(respond)
    except Exception as e:
        return e
    raise AssertionError("complete() returned instead of raising")


def reply(status: int, body: Any = None, **kwargs: Any) -> Handler:
    if body is None:
        return lambda _r: httpx.Response(status, **kwargs)
    return lambda _r: httpx.Response(status, json=body, **kwargs)


def api_error(kind: str, message: str = "nope") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


# -- the request ---------------------------------------------------------------------------------


async def test_request_url_headers_and_body() -> None:
    _, rec = await complete(reply(200, ok_body()))
    assert len(rec.requests) == 1
    req = rec.requests[0]
    assert req.method == "POST"
    assert str(req.url) == f"{BASE}/messages"
    assert req.headers["x-api-key"] == KEY
    assert req.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in req.headers
    body = json.loads(req.content)
    assert body["model"] == "claude-x"
    assert body["system"] == "You are terse.\n\nAnswer with a number."
    assert body["messages"] == [
        {"role": "user", "content": "What is 6 * 7?"},
        {"role": "assistant", "content": "Thinking."},
        {"role": "user", "content": "Go on."},
    ]
    assert body["max_tokens"] == 77
    assert body["temperature"] == 0.0  # always sent, even at its default
    assert "tools" not in body and "tool_choice" not in body


async def test_no_system_field_without_system_messages() -> None:
    prompt = Prompt(messages=(Message("user", "hi"),), variant="B", lang="en")
    params = GenerationParams(temperature=0.7, max_tokens=5)
    _, rec = await complete(reply(200, ok_body()), prompt, params)
    body = json.loads(rec.requests[0].content)
    assert "system" not in body
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert (body["max_tokens"], body["temperature"]) == (5, 0.7)


# -- parsing -------------------------------------------------------------------------------------


async def test_text_blocks_joined_and_usage() -> None:
    content = [
        {"type": "text", "text": "Six sevens "},
        {"type": "tool_use", "id": "t", "name": "calc", "input": {}},
        {"type": "thinking", "thinking": "hidden"},
        {"type": "text", "text": "are 42."},
    ]
    c, _ = await complete(reply(200, ok_body(content=content)))
    assert c.text == "Six sevens are 42."
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (13, 2)
    assert c.model == "claude-served"
    assert c.finish_reason == "stop"
    assert c.latency_s >= 0


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("tool_use", "tool_calls"),
        ("something_new", "unknown"),
        (None, "unknown"),
    ],
)
async def test_stop_reason_mapping(stop_reason: str | None, finish: str) -> None:
    c, _ = await complete(reply(200, ok_body(stop_reason=stop_reason)))
    assert c.finish_reason == finish


async def test_empty_content_list_is_an_empty_reply() -> None:
    c, _ = await complete(reply(200, ok_body(content=[])))
    assert c.text == ""


# -- errors --------------------------------------------------------------------------------------


ERRORS: list[tuple[str, Handler, type[Exception], int | None]] = [
    (
        "429 rate_limit_error",
        reply(429, api_error("rate_limit_error"), headers={"retry-after": "7"}),
        RateLimited,
        429,
    ),
    ("529 overloaded_error", reply(529, api_error("overloaded_error")), RateLimited, 529),
    ("401 authentication_error", reply(401, api_error("authentication_error")), AuthError, 401),
    ("403 permission_error", reply(403, api_error("permission_error")), AuthError, 403),
    ("400 invalid_request_error", reply(400, api_error("invalid_request_error")), BadRequest, 400),
    ("404 not_found_error", reply(404, api_error("not_found_error")), BadRequest, 404),
    ("413 request_too_large", reply(413, api_error("request_too_large")), BadRequest, 413),
    ("500 api_error", reply(500, api_error("api_error")), Transient, 500),
    ("502 no body", reply(502), Transient, 502),
    ("503 html", lambda _r: httpx.Response(503, text="<html>down</html>"), Transient, 503),
    ("200 not JSON", lambda _r: httpx.Response(200, text="<html>hi</html>"), Transient, None),
    ("200 no content", reply(200, {"type": "message", "usage": {}}), Transient, None),
    ("200 content not a list", reply(200, ok_body(content="42")), Transient, None),
    ("200 JSON list", reply(200, [1, 2]), Transient, None),
]


@pytest.mark.parametrize(("name", "respond", "kind", "status"), ERRORS, ids=[e[0] for e in ERRORS])
async def test_error_table(
    name: str, respond: Handler, kind: type[Exception], status: int | None
) -> None:
    e = await failure(respond)
    assert type(e) is kind, f"{name}: {type(e).__name__}: {e}"
    assert getattr(e, "status", None) == status


async def test_retry_after_is_read() -> None:
    e = await failure(reply(429, api_error("rate_limit_error"), headers={"retry-after": "7"}))
    assert isinstance(e, RateLimited)
    assert e.retry_after_s == 7.0
    e = await failure(reply(529, api_error("overloaded_error")))
    assert isinstance(e, RateLimited)
    assert e.retry_after_s is None


TRANSPORT_ERRORS = [
    httpx.ConnectError("connection refused"),
    httpx.ReadError("reset by peer"),
    httpx.RemoteProtocolError("peer closed connection"),
    httpx.ReadTimeout("read timed out"),
    httpx.ConnectTimeout("connect timed out"),
]


@pytest.mark.parametrize("exc", TRANSPORT_ERRORS, ids=lambda e: type(e).__name__)
async def test_transport_errors_are_transient(exc: Exception) -> None:
    def boom(request: httpx.Request) -> httpx.Response:
        raise exc

    e = await failure(boom)
    assert type(e) is Transient
    assert e.__cause__ is exc


ECHOES: list[tuple[int, str]] = [
    (401, "authentication_error"),
    (403, "permission_error"),
    (400, "invalid_request_error"),
    (429, "rate_limit_error"),
    (500, "api_error"),
]


@pytest.mark.parametrize(("status", "kind"), ECHOES)
async def test_key_never_in_error_even_when_echoed(status: int, kind: str) -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        key = request.headers["x-api-key"]
        return httpx.Response(status, json=api_error(kind, f"invalid x-api-key {key}"))

    e = await failure(echo)
    assert KEY not in str(e)
    assert "[redacted]" in str(e)
    assert KEY not in repr(e.args)


async def test_key_never_in_error_of_a_non_json_echo() -> None:
    e = await failure(lambda r: httpx.Response(401, text=f"bad key {r.headers['x-api-key']}"))
    assert isinstance(e, AuthError)
    assert KEY not in str(e)


async def test_key_never_in_error_of_a_200_not_json_echo() -> None:
    e = await failure(lambda r: httpx.Response(200, text=f"key={r.headers['x-api-key']}"))
    assert isinstance(e, Transient)
    assert KEY not in str(e)


# -- the registry --------------------------------------------------------------------------------


KEY_VARS = ("PROCTOR_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY")


def test_registry_anthropic_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY is not set"):
        make_provider("anthropic/claude-x")


def test_registry_anthropic_openai_key_is_not_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    with pytest.raises(ConfigError):
        make_provider("anthropic/claude-x")


@pytest.mark.parametrize("var", ["PROCTOR_API_KEY", "ANTHROPIC_API_KEY"])
async def test_registry_anthropic_reads_its_key(monkeypatch: pytest.MonkeyPatch, var: str) -> None:
    for v in KEY_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv(var, KEY)
    provider = make_provider("anthropic/claude-x")
    try:
        assert isinstance(provider, AnthropicProvider)
        assert provider.name == "anthropic/claude-x"
    finally:
        await provider.aclose()
