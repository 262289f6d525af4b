"""ModelCaller: retries for failed calls only, a per-request timeout, bounded concurrency."""

from __future__ import annotations

import asyncio

import pytest

from proctor.calling.caller import CallFailure, CallSuccess, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import AuthError, BadRequest, RateLimited, Transient
from proctor.providers.fake import FakeProvider
from proctor.types import Completion, GenerationParams, Message, Prompt, Usage

PROMPT = Prompt(messages=(Message("user", "What is 40 + 2?"),), variant="B", lang="en")
PARAMS = GenerationParams(timeout_s=5.0)


class Sleeps:
    """An injected sleep that records the waits and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_success_after_two_transient_failures() -> None:
    provider = FakeProvider("f", [Transient("HTTP 503"), Transient("reset"), "Final answer: 42"])
    sleeps = Sleeps()
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=4), sleep=sleeps)
    result = await caller.call(PROMPT, PARAMS)
    assert isinstance(result, CallSuccess)
    assert result.attempts == 3
    assert result.completion.text == "Final answer: 42"
    assert provider.calls == 3
    assert caller.retries == 2
    assert len(sleeps.waits) == 2
    assert all(0.0 <= w <= RetryPolicy().max_delay_s for w in sleeps.waits)


async def test_retry_after_from_a_rate_limit_is_slept() -> None:
    provider = FakeProvider("f", [RateLimited("429", retry_after_s=2.5), "ok"])
    sleeps = Sleeps()
    result = await ModelCaller(provider, sleep=sleeps).call(PROMPT, PARAMS)
    assert isinstance(result, CallSuccess)
    assert sleeps.waits == [2.5]


@pytest.mark.parametrize("error", [AuthError("HTTP 401: bad key"), BadRequest("HTTP 400: no")])
async def test_non_retryable_error_is_not_retried(error: Exception) -> None:
    provider = FakeProvider("f", error)  # type: ignore[arg-type]
    sleeps = Sleeps()
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=5), sleep=sleeps)
    result = await caller.call(PROMPT, PARAMS)
    assert isinstance(result, CallFailure)
    assert result.attempts == 1
    assert result.error_type == type(error).__name__
    assert result.error == str(error)
    assert provider.calls == 1
    assert caller.retries == 0
    assert sleeps.waits == []


async def test_exhausting_attempts_gives_a_call_failure() -> None:
    provider = FakeProvider("f", Transient("HTTP 503: overloaded"))
    sleeps = Sleeps()
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=3), sleep=sleeps)
    result = await caller.call(PROMPT, PARAMS)
    assert result == CallFailure(error="HTTP 503: overloaded", error_type="Transient", attempts=3)
    assert provider.calls == 3
    assert caller.retries == 2
    assert len(sleeps.waits) == 2


class HangingProvider:
    """Never answers; counts calls and how many were cancelled."""

    def __init__(self) -> None:
        self.calls = 0
        self.cancelled = 0

    @property
    def name(self) -> str:
        return "hang"

    @property
    def max_concurrency(self) -> int:
        return 4

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.calls += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


async def test_hanging_provider_times_out_is_retried_then_fails() -> None:
    provider = HangingProvider()
    sleeps = Sleeps()
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=2), sleep=sleeps)
    result = await asyncio.wait_for(
        caller.call(PROMPT, GenerationParams(timeout_s=0.02)), timeout=5
    )
    assert isinstance(result, CallFailure)
    assert result.error_type == "Transient"
    assert "timeout" in result.error
    assert result.attempts == 2
    assert provider.calls == 2
    assert provider.cancelled == 2
    assert len(sleeps.waits) == 1


class GatedProvider:
    """Holds every call until `gate` is set; tracks the most calls in flight at once."""

    def __init__(self, max_concurrency: int = 8) -> None:
        self.gate = asyncio.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self.calls = 0
        self._max = max_concurrency

    @property
    def name(self) -> str:
        return "gated"

    @property
    def max_concurrency(self) -> int:
        return self._max

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        return Completion("Final answer: 42", "stop", Usage(), "gated", 0.0)

    async def aclose(self) -> None:
        return None


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.parametrize(("concurrency", "default", "bound"), [(3, 8, 3), (None, 2, 2)])
async def test_concurrency_bound_is_honoured(
    concurrency: int | None, default: int, bound: int
) -> None:
    provider = GatedProvider(max_concurrency=default)
    caller = ModelCaller(provider, concurrency=concurrency, sleep=Sleeps())
    tasks = [asyncio.create_task(caller.call(PROMPT, PARAMS)) for _ in range(10)]
    await settle()
    assert provider.in_flight == bound
    assert provider.calls == bound
    provider.gate.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks), timeout=5)
    assert all(isinstance(r, CallSuccess) for r in results)
    assert provider.calls == 10
    assert provider.max_in_flight == bound


async def test_a_wrong_answer_is_never_retried() -> None:
    provider = FakeProvider("f", "Final answer: 41")
    sleeps = Sleeps()
    result = await ModelCaller(provider, sleep=sleeps).call(PROMPT, PARAMS)
    assert isinstance(result, CallSuccess)
    assert result.attempts == 1
    assert result.completion.text == "Final answer: 41"
    assert provider.calls == 1
    assert sleeps.waits == []


@pytest.mark.parametrize("finish", ["length", "content_filter"])
async def test_a_truncated_or_filtered_reply_is_not_retried(finish: str) -> None:
    provider = FakeProvider("f", ("Final ans", finish))  # type: ignore[arg-type]
    result = await ModelCaller(provider, sleep=Sleeps()).call(PROMPT, PARAMS)
    assert isinstance(result, CallSuccess)
    assert result.attempts == 1
    assert result.completion.finish_reason == finish


async def test_same_seed_gives_same_backoff() -> None:
    async def waits(seed: int) -> list[float]:
        sleeps = Sleeps()
        caller = ModelCaller(
            FakeProvider("f", Transient("x")),
            policy=RetryPolicy(max_attempts=5),
            seed=seed,
            sleep=sleeps,
        )
        await caller.call(PROMPT, PARAMS)
        return sleeps.waits

    assert await waits(3) == await waits(3)
    assert await waits(3) != await waits(4)
