"""Adaptive concurrency: halve on a rate limit, climb back by one after `limit` successes, and
never let more calls in than the current limit."""

from __future__ import annotations

import asyncio

import pytest

from proctor.calling.adaptive import AdaptiveConcurrency
from proctor.calling.caller import CallSuccess, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import RateLimited
from proctor.providers.fake import FakeProvider, Reply
from proctor.types import Completion, GenerationParams, Message, Prompt

PROMPT = Prompt(messages=(Message("user", "1 + 1"),), variant="B", lang="en")
PARAMS = GenerationParams(max_tokens=8, timeout_s=5.0)


@pytest.mark.parametrize(
    ("ceiling", "halvings", "limits"),
    [
        (8, 4, [4, 2, 1, 1]),
        (7, 3, [3, 1, 1]),
        (1, 2, [1, 1]),
        (32, 6, [16, 8, 4, 2, 1, 1]),
    ],
)
def test_halves_on_rate_limit_never_below_one(
    ceiling: int, halvings: int, limits: list[int]
) -> None:
    c = AdaptiveConcurrency(ceiling)
    seen = []
    for _ in range(halvings):
        c.on_rate_limited()
        seen.append(c.limit)
    assert seen == limits
    assert c.lowest == limits[-1]


@pytest.mark.parametrize("ceiling", [0, -3])
def test_ceiling_at_least_one(ceiling: int) -> None:
    c = AdaptiveConcurrency(ceiling)
    assert (c.ceiling, c.limit) == (1, 1)


async def test_climbs_by_one_after_limit_successes_up_to_ceiling() -> None:
    c = AdaptiveConcurrency(5)
    for _ in range(3):
        c.on_rate_limited()
    assert c.limit == 1
    # limit L needs L successes in a row to become L + 1: 1 → 2 → 3 → 4 → 5
    needed = {1: 1, 2: 2, 3: 3, 4: 4}
    for start, n in needed.items():
        assert c.limit == start
        for i in range(n):
            assert c.limit == start, f"raised after {i} of {n} successes"
            await c.on_success()
        assert c.limit == start + 1
    for _ in range(50):
        await c.on_success()
    assert c.limit == 5  # never above the ceiling
    assert c.lowest == 1


async def test_rate_limit_resets_the_success_streak() -> None:
    c = AdaptiveConcurrency(8)
    c.on_rate_limited()  # 4
    for _ in range(3):
        await c.on_success()
    c.on_rate_limited()  # 2, streak reset
    assert c.limit == 2
    await c.on_success()
    assert c.limit == 2
    await c.on_success()
    assert c.limit == 3


async def test_acquire_waits_for_a_slot() -> None:
    c = AdaptiveConcurrency(2)
    await c.acquire()
    await c.acquire()
    third = asyncio.create_task(c.acquire())
    await asyncio.sleep(0.01)
    assert not third.done()
    await c.release()
    await asyncio.wait_for(third, 1.0)
    assert c.in_flight == 2


class Counting:
    """A FakeProvider wrapper that tracks how many calls are inside the provider at once."""

    def __init__(self, inner: FakeProvider) -> None:
        self.inner = inner
        self.now = 0
        self.most = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def max_concurrency(self) -> int:
        return self.inner.max_concurrency

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            return await self.inner.complete(prompt, params)
        finally:
            self.now -= 1

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize(("ceiling", "k"), [(8, 6), (16, 40), (4, 1)])
async def test_caller_in_flight_never_exceeds_the_limit(ceiling: int, k: int) -> None:
    async def no_sleep(_s: float) -> None:
        await asyncio.sleep(0)

    seen = 0

    def script(_p: Prompt) -> Reply:
        nonlocal seen
        seen += 1
        return RateLimited("429", retry_after_s=0) if seen <= k else "Final answer: 2"

    inner = FakeProvider("busy", script, delay_s=0.002, max_concurrency=ceiling)
    provider = Counting(inner)
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=100), sleep=no_sleep, seed=1)
    conc = caller.concurrency
    violations: list[tuple[int, int]] = []
    acquire = conc.acquire

    async def checked_acquire() -> None:
        await acquire()
        if conc.in_flight > conc.limit:
            violations.append((conc.in_flight, conc.limit))

    conc.acquire = checked_acquire  # type: ignore[method-assign]
    n = 3 * ceiling + 10
    results = await asyncio.gather(*(caller.call(PROMPT, PARAMS) for _ in range(n)))
    assert all(isinstance(r, CallSuccess) for r in results)
    assert violations == []
    assert provider.most <= ceiling
    assert caller.stats.rate_limited == k
    assert conc.lowest < ceiling or ceiling == 1
    assert 1 <= conc.limit <= ceiling
    assert conc.in_flight == 0


async def test_caller_climbs_back_to_the_ceiling() -> None:
    async def no_sleep(_s: float) -> None:
        return None

    script = [RateLimited("429", retry_after_s=0)] * 3 + ["Final answer: 2"] * 1000
    provider = FakeProvider("busy", script, max_concurrency=8)
    caller = ModelCaller(provider, policy=RetryPolicy(max_attempts=10), sleep=no_sleep)
    for _ in range(3 + 40):
        assert isinstance(await caller.call(PROMPT, PARAMS), CallSuccess)
    assert caller.concurrency.lowest == 1
    # 1+2+...+7 = 28 successes climb from 1 to 8
    assert caller.concurrency.limit == 8


async def test_a_cancelled_waiter_leaves_no_trace() -> None:
    c = AdaptiveConcurrency(1)
    await c.acquire()
    waiting = asyncio.create_task(c.acquire())
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await c.release()
    assert c.in_flight == 0
    await asyncio.wait_for(c.acquire(), 1.0)  # the fast path again: nobody waits
    assert c.in_flight == 1


async def test_a_lowered_limit_holds_new_calls_until_enough_are_released() -> None:
    c = AdaptiveConcurrency(4)
    for _ in range(4):
        await c.acquire()
    c.on_rate_limited()  # limit 2, 4 in flight
    late = asyncio.create_task(c.acquire())
    await c.release()  # 3 in flight: still over
    await asyncio.sleep(0.01)
    assert not late.done()
    await c.release()
    await c.release()  # 1 in flight: a slot under the limit
    await asyncio.wait_for(late, 1.0)
    assert c.in_flight == 2
