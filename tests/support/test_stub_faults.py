"""Each fault the stub injects, seen through the real OpenAI-compatible adapter (aiohttp on the
wire), is the ProviderError our retry policy expects; retried bodies get through; shutdown never
waits on a hang."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Callable

import aiohttp
import httpx
import pytest

from proctor.calling.breaker import CircuitBreaker
from proctor.calling.caller import CallFailure, CallSuccess, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import ProviderError, RateLimited, Transient
from proctor.providers.openai_compat import OpenAICompatProvider
from proctor.types import GenerationParams, Message, Prompt
from support.stub import FAULT_KINDS, FaultKind, StubConfig, StubHandle, body_key, run_stub
from support.stub.app import retry_after_for

StartStub = Callable[..., StubHandle]
MakeProvider = Callable[[StubHandle], OpenAICompatProvider]

PROMPT = Prompt((Message("user", "Problem: 6 × 7"),), "B", "en")
PARAMS = GenerationParams(max_tokens=64, timeout_s=10.0)
HANG_TIMEOUT_S = 0.3


def _expected(
    kind: FaultKind,
) -> tuple[type[ProviderError], str, type[Exception] | tuple[type[Exception], ...] | None]:
    """(error class, words in its message, the wire's exception under it) for each kind."""
    return {
        "429": (RateLimited, "HTTP 429", None),
        "429_no_retry_after": (RateLimited, "HTTP 429", None),
        "500": (Transient, "HTTP 500", None),
        "502": (Transient, "HTTP 502", None),
        "503": (Transient, "HTTP 503", None),
        "reset": (Transient, "connection failed", (aiohttp.ClientError, OSError)),
        "hang": (Transient, "timed out", TimeoutError),
        "not_json": (Transient, "not JSON", ValueError),
        "no_choices": (Transient, "no choices", None),
        "truncated_stream": (Transient, "connection failed", aiohttp.ClientPayloadError),
    }[kind]


@pytest.mark.parametrize("kind", FAULT_KINDS)
async def test_each_fault_surfaces_as_its_provider_error(
    kind: FaultKind, start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(fault_rate=1.0, faults=(kind,), hang_s=120.0)
    provider = make_provider(stub)
    timeout = HANG_TIMEOUT_S if kind == "hang" else PARAMS.timeout_s
    error_type, words, cause = _expected(kind)
    start = time.perf_counter()
    with pytest.raises(ProviderError) as info:
        await provider.complete(PROMPT, GenerationParams(max_tokens=64, timeout_s=timeout))
    elapsed = time.perf_counter() - start
    error = info.value
    assert type(error) is error_type, repr(error)
    assert error.retryable
    assert words in str(error)
    if cause is not None:
        assert isinstance(error.__cause__, cause), repr(error.__cause__)
    if kind == "reset":
        assert not isinstance(error.__cause__, TimeoutError)
    if kind in ("500", "502", "503"):
        assert error.status == int(kind)
    if kind == "429":
        assert isinstance(error, RateLimited) and error.retry_after_s in (0.0, 1.0)
    if kind == "429_no_retry_after":
        assert isinstance(error, RateLimited) and error.retry_after_s is None
    if kind == "hang":
        # Not a speed target: the server hangs for 120 s, so anything well under that proves
        # the per-request timeout cut the call (a loaded CI box may be slow to get there).
        assert HANG_TIMEOUT_S <= elapsed < 60.0
    else:
        assert elapsed < 60.0  # a hang guard, not a speed target
    stats = stub.stats()
    assert stats.faults == {kind: 1}
    assert (stats.requests, stats.completions) == (1, 0)


async def test_retry_after_is_zero_or_one_as_drawn(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    config = StubConfig(seed=3, fault_rate=1.0, faults=("429",))
    stub = start_stub(seed=3, fault_rate=1.0, faults=("429",))
    provider = make_provider(stub)
    seen: list[float | None] = []
    for _ in range(16):
        with pytest.raises(RateLimited) as info:
            await provider.complete(PROMPT, PARAMS)
        seen.append(info.value.retry_after_s)
    (key,) = stub.stats().by_body
    assert seen == [float(retry_after_for(config, key, attempt)) for attempt in range(16)]
    assert set(seen) == {0.0, 1.0}


async def test_a_hang_the_client_waits_out_ends_in_a_completion(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(fault_rate=1.0, faults=("hang",), hang_s=0.2)
    completion = await make_provider(stub).complete(PROMPT, PARAMS)
    assert completion.text.endswith("Final answer: 42")
    stats = stub.stats()
    assert stats.faults == {"hang": 1} and stats.completions == 1


def test_a_cut_stream_is_a_protocol_error_and_a_whole_one_ends_with_done(
    start_stub: StartStub,
) -> None:
    body = {
        "model": "stub",
        "messages": [{"role": "user", "content": PROMPT.messages[0].content}],
        "stream": True,
    }
    whole = start_stub()
    cut = start_stub(fault_rate=1.0, faults=("truncated_stream",))
    with httpx.Client(trust_env=False, timeout=10.0) as client:
        with client.stream("POST", f"{whole.base_url}/chat/completions", json=body) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            lines = [line for line in resp.iter_lines() if line.startswith("data: ")]
        assert lines[-1] == "data: [DONE]"
        text = "".join(
            chunk["choices"][0]["delta"].get("content", "")
            for chunk in (httpx.Response(200, content=line[6:]).json() for line in lines[:-1])
            if chunk["choices"]
        )
        assert text.endswith("Final answer: 42")
        with (
            pytest.raises(httpx.RemoteProtocolError),
            client.stream("POST", f"{cut.base_url}/chat/completions", json=body) as resp,
        ):
            assert resp.status_code == 200
            for _ in resp.iter_lines():
                pass
    assert cut.stats().faults == {"truncated_stream": 1}


async def test_retried_requests_get_through_and_counts_add_up(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(seed=11, fault_rate=0.5)
    provider = make_provider(stub)

    async def no_sleep(_: float) -> None:
        return None

    # No circuit breaker: at this fault rate ten failed attempts in a row (in whatever order
    # concurrent calls finish) happen in about one run in forty and would stop the rest.
    caller = ModelCaller(
        provider,
        concurrency=8,
        policy=RetryPolicy(max_attempts=30),
        breaker=CircuitBreaker(threshold=0),
        sleep=no_sleep,
    )
    prompts = [Prompt((Message("user", f"Problem: {i} × 7"),), "B", "en") for i in range(2, 42)]
    results = await asyncio.gather(*(caller.call(p, PARAMS) for p in prompts))
    assert all(isinstance(r, CallSuccess) for r in results)
    texts = [r.completion.text for r in results if isinstance(r, CallSuccess)]
    expected = [f"Final answer: {i * 7}" for i in range(2, 42)]
    assert all(t.endswith(e) for t, e in zip(texts, expected, strict=True))
    stats = stub.stats()
    assert stats.completions == len(prompts)
    assert stats.requests == sum(r.attempts for r in results) == len(prompts) + caller.retries
    assert stats.requests == stats.completions + sum(stats.faults.values())
    assert sum(stats.faults.values()) > 0
    assert sorted(stats.by_body.values()) == sorted(r.attempts for r in results)


async def test_max_faults_per_body_lets_the_next_attempt_through(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(fault_rate=1.0, faults=("503",), max_faults_per_body=2)
    provider = make_provider(stub)
    for _ in range(2):
        with pytest.raises(Transient):
            await provider.complete(PROMPT, PARAMS)
    completion = await provider.complete(PROMPT, PARAMS)
    assert completion.text.endswith("Final answer: 42")
    assert stub.stats().faults == {"503": 2}


async def test_a_call_that_keeps_failing_is_a_call_failure(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(fault_rate=1.0, faults=("500",))

    async def no_sleep(_: float) -> None:
        return None

    caller = ModelCaller(make_provider(stub), policy=RetryPolicy(max_attempts=3), sleep=no_sleep)
    result = await caller.call(PROMPT, PARAMS)
    assert isinstance(result, CallFailure)
    assert (result.error_type, result.attempts) == ("Transient", 3)
    assert list(stub.stats().by_body.values()) == [3]


def test_body_key_is_a_sha256_prefix() -> None:
    assert body_key(b"{}") == hashlib.sha256(b"{}").hexdigest()[:16]


def test_stopping_the_stub_does_not_wait_for_a_hanging_request() -> None:
    outcome: list[BaseException | int] = []
    with run_stub(StubConfig(fault_rate=1.0, faults=("hang",), hang_s=60.0)) as stub:

        def ask() -> None:
            try:
                with httpx.Client(trust_env=False, timeout=30.0) as client:
                    body = {"model": "stub", "messages": [{"role": "user", "content": "1 + 1"}]}
                    outcome.append(
                        client.post(f"{stub.base_url}/chat/completions", json=body).status_code
                    )
            except BaseException as e:
                outcome.append(e)

        asker = threading.Thread(target=ask)
        asker.start()
        deadline = time.monotonic() + 10
        while stub.stats().requests == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stub.stats().faults == {"hang": 1}
        start = time.perf_counter()
    stopped_in = time.perf_counter() - start
    asker.join(10)
    assert not asker.is_alive()
    assert stopped_in < 30.0  # the request hangs for 60 s: stopping did not wait for it
    assert len(outcome) == 1 and isinstance(outcome[0], httpx.TransportError)
