"""The OpenAI-compatible adapter, run for real against a faked transport (not a faked client)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from proctor.errors import AuthError, BadRequest, ProviderError, RateLimited, Transient
from proctor.providers.openai_compat import OpenAICompatProvider, parse_retry_after
from proctor.types import Completion, GenerationParams, Message, Prompt

KEY = "sk-test-SECRET-123"
BASE = "http://127.0.0.1:8000/v1"
PROMPT = Prompt(messages=(Message("user", "What is 6 * 7?"),), variant="B", lang="en")
PARAMS = GenerationParams(temperature=0.25, max_tokens=77, timeout_s=5.0)

Handler = Callable[[httpx.Request], httpx.Response]


def ok_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "served-model",
        "choices": [{"message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3},
    }
    body.update(overrides)
    return body


class Recorder:
    """A transport handler that records requests and answers with `respond`."""

    def __init__(self, respond: Handler) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request)


async def complete(respond: Handler, key: str | None = KEY) -> tuple[Completion, Recorder]:
    rec = Recorder(respond)
    provider = OpenAICompatProvider(
        "openai-compat/m@" + BASE, "m", BASE, key, transport=httpx.MockTransport(rec)
    )
    try:
        return await provider.complete(PROMPT, PARAMS), rec
    finally:
        await provider.aclose()


async def failure(respond: Handler, key: str | None = KEY) -> BaseException:
    """The exception `complete` raises (any type, so a wrongly typed one is seen, not hidden)."""
    try:
        await complete(respond, key)
    except Exception as e:
        return e
    raise AssertionError("complete() returned instead of raising")


def reply(status: int, body: Any = None, **kwargs: Any) -> Handler:
    if body is None:
        return lambda _r: httpx.Response(status, **kwargs)
    return lambda _r: httpx.Response(status, json=body, **kwargs)


# -- the request ---------------------------------------------------------------------------------


async def test_request_body_and_url() -> None:
    _, rec = await complete(reply(200, ok_body()))
    assert len(rec.requests) == 1
    req = rec.requests[0]
    assert req.method == "POST"
    assert str(req.url) == BASE + "/chat/completions"
    body = json.loads(req.content)
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "What is 6 * 7?"}],
        "temperature": 0.25,
        "max_tokens": 77,
        "stream": False,
    }


async def test_request_never_offers_tools() -> None:
    _, rec = await complete(reply(200, ok_body()))
    body = json.loads(rec.requests[0].content)
    assert "tools" not in body
    assert "tool_choice" not in body
    assert "functions" not in body


async def test_seed_is_sent_only_when_set() -> None:
    rec = Recorder(reply(200, ok_body()))
    provider = OpenAICompatProvider("n", "m", BASE, None, transport=httpx.MockTransport(rec))
    try:
        await provider.complete(PROMPT, GenerationParams(seed=7))
    finally:
        await provider.aclose()
    assert json.loads(rec.requests[0].content)["seed"] == 7


async def test_authorization_header_carries_the_key() -> None:
    _, rec = await complete(reply(200, ok_body()), key=KEY)
    assert rec.requests[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("key", [None, ""])
async def test_no_authorization_header_without_a_key(key: str | None) -> None:
    _, rec = await complete(reply(200, ok_body()), key=key)
    assert "authorization" not in rec.requests[0].headers


# -- parsing a reply -----------------------------------------------------------------------------


async def test_parses_text_usage_and_model() -> None:
    c, _ = await complete(reply(200, ok_body()))
    assert c.text == "42"
    assert c.finish_reason == "stop"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (11, 3)
    assert c.model == "served-model"
    assert c.latency_s >= 0


async def test_missing_usage_and_model_fall_back() -> None:
    body = {"choices": [{"message": {"content": "1"}, "finish_reason": "stop"}]}
    c, _ = await complete(reply(200, body))
    assert c.usage.total_tokens == 0
    assert c.model == "m"


@pytest.mark.parametrize(
    ("wire", "ours"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("content_filter", "content_filter"),
        ("tool_calls", "tool_calls"),
        ("function_call", "tool_calls"),
        ("eos_token", "unknown"),
        (None, "unknown"),
    ],
)
async def test_finish_reason_mapping(wire: str | None, ours: str) -> None:
    body = ok_body(choices=[{"message": {"content": "x"}, "finish_reason": wire}])
    c, _ = await complete(reply(200, body))
    assert c.finish_reason == ours


async def test_null_content_is_empty_text() -> None:
    body = ok_body(choices=[{"message": {"content": None}, "finish_reason": "length"}])
    c, _ = await complete(reply(200, body))
    assert c.text == ""
    assert c.finish_reason == "length"


async def test_non_text_content_is_transient() -> None:
    body = ok_body(choices=[{"message": {"content": [{"type": "text"}]}, "finish_reason": "stop"}])
    assert isinstance(await failure(reply(200, body)), Transient)


# -- error classification ------------------------------------------------------------------------


async def test_429_with_retry_after_seconds() -> None:
    e = await failure(reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "7"}))
    assert isinstance(e, RateLimited)
    assert e.retry_after_s == 7.0
    assert e.status == 429
    assert e.retryable
    assert "slow down" in str(e)


async def test_429_with_retry_after_http_date() -> None:
    when = datetime.now(UTC) + timedelta(seconds=30)
    header = format_datetime(when, usegmt=True)
    e = await failure(reply(429, {"error": "busy"}, headers={"Retry-After": header}))
    assert isinstance(e, RateLimited)
    assert e.retry_after_s is not None
    assert 27.0 <= e.retry_after_s <= 31.0


async def test_429_without_retry_after() -> None:
    e = await failure(reply(429, {"error": "busy"}))
    assert isinstance(e, RateLimited)
    assert e.retry_after_s is None


def test_parse_retry_after() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("0") == 0.0
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("soon") is None
    past = format_datetime(datetime.fromtimestamp(time.time() - 3600, UTC), usegmt=True)
    assert parse_retry_after(past) == 0.0


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, AuthError),
        (403, AuthError),
        (400, BadRequest),
        (404, BadRequest),
        (422, BadRequest),
        (500, Transient),
        (502, Transient),
        (503, Transient),
        (408, Transient),
    ],
)
async def test_status_classification(status: int, kind: type[ProviderError]) -> None:
    e = await failure(reply(status, {"error": {"message": "server says no"}}))
    assert type(e) is kind
    assert isinstance(e, ProviderError)
    assert e.status == status
    assert f"HTTP {status}" in str(e)
    assert "server says no" in str(e)
    assert e.retryable is (kind is Transient)


async def test_error_with_non_json_body_keeps_its_text() -> None:
    e = await failure(lambda _r: httpx.Response(502, text="<html>Bad Gateway</html>"))
    assert isinstance(e, Transient)
    assert "Bad Gateway" in str(e)


async def test_non_json_200_is_transient() -> None:
    e = await failure(lambda _r: httpx.Response(200, text="<html>proxy login</html>"))
    assert isinstance(e, Transient)
    assert "not JSON" in str(e)


@pytest.mark.parametrize(
    "body",
    [{"choices": []}, {}, {"choices": None}, {"choices": ["text"]}, [1, 2], "just a string"],
)
async def test_body_without_choices_is_transient(body: Any) -> None:
    assert isinstance(await failure(reply(200, body)), Transient)


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("read timed out"),
        httpx.ConnectTimeout("connect timed out"),
        httpx.RemoteProtocolError("peer closed connection"),
        httpx.ReadError("connection reset by peer"),
    ],
)
async def test_transport_errors_are_transient(exc: httpx.HTTPError) -> None:
    def boom(_r: httpx.Request) -> httpx.Response:
        raise exc

    e = await failure(boom)
    assert isinstance(e, Transient)
    assert e.__cause__ is exc


async def test_timeout_message_names_the_timeout() -> None:
    def boom(_r: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out")

    assert "timed out after 5 s" in str(await failure(boom))


class _GarbageStream(httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"this is not gzip"


async def test_undecodable_body_is_transient() -> None:
    def bad_gzip(_r: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": "gzip"}, stream=_GarbageStream())

    assert isinstance(await failure(bad_gzip), Transient)


@pytest.mark.parametrize("usage", [{"prompt_tokens": "many"}, {"completion_tokens": [1]}])
async def test_malformed_usage_never_escapes_untyped(usage: dict[str, Any]) -> None:
    # The reply itself is good: it is kept, and a malformed count reads as 0, never invented.
    completion, _ = await complete(reply(200, ok_body(usage=usage)))
    assert completion.text == "42"
    assert completion.usage.total_tokens == 0


# -- the key never leaks into an error message ---------------------------------------------------

LEAK_CASES: list[tuple[str, Handler]] = [
    ("401", reply(401, {"error": {"message": "invalid key"}})),
    ("403", reply(403, {"error": "forbidden"})),
    ("400", reply(400, {"error": {"message": "bad"}})),
    ("429", reply(429, {"error": "busy"}, headers={"Retry-After": "1"})),
    ("500", lambda _r: httpx.Response(500, text="oops")),
    ("200-not-json", lambda _r: httpx.Response(200, text="nope")),
    ("200-no-choices", reply(200, {"choices": []})),
]


@pytest.mark.parametrize(("label", "respond"), LEAK_CASES, ids=[c[0] for c in LEAK_CASES])
async def test_key_is_not_in_error_messages(label: str, respond: Handler) -> None:
    e = await failure(respond)
    assert isinstance(e, ProviderError), label
    assert KEY not in str(e)
    assert KEY not in repr(e)
    assert "SECRET" not in str(e)


@pytest.mark.parametrize(
    "exc", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow")], ids=["connect", "timeout"]
)
async def test_key_is_not_in_transport_error_messages(exc: httpx.HTTPError) -> None:
    def boom(_r: httpx.Request) -> httpx.Response:
        raise exc

    e = await failure(boom)
    assert KEY not in str(e)
    assert KEY not in repr(e)


@pytest.mark.parametrize(
    "respond",
    [
        reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}),
        lambda _r: httpx.Response(500, text=f"debug: Authorization: Bearer {KEY}"),
        lambda _r: httpx.Response(200, text=f"echo Bearer {KEY}"),
    ],
    ids=["401-json", "500-text", "200-text"],
)
async def test_key_echoed_by_the_server_is_redacted(respond: Handler) -> None:
    e = await failure(respond)
    assert isinstance(e, ProviderError)
    assert KEY not in str(e)
