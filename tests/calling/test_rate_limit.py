"""Requests- and tokens-per-minute gates (aiolimiter leaky buckets) and the token estimate.

aiolimiter's documented behaviour: `AsyncLimiter(max_rate, time_period)` lets up to `max_rate`
acquisitions through at once ("up to `max_rate` acquisitions are allowed within this time period
in a burst"), then drips at max_rate / time_period. So rpm=600 lets 600 requests go at once and
then 10 a second; the tests below check exactly that."""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

import pytest
from aiolimiter import AsyncLimiter

from proctor.calling import rate_limit
from proctor.calling.caller import CallSuccess, ModelCaller
from proctor.calling.rate_limit import RateGate, RateLimits, estimate_tokens
from proctor.providers.fake import FakeProvider
from proctor.types import GenerationParams, Message, Prompt

# No upper time bounds here (a loaded CI box makes any of them flaky): whether a call had to
# wait is counted as the acquisitions that found the bucket full; a lower bound on the elapsed
# time proves the drip rate, since no machine is ever faster than the limiter allows.


async def timed_waits(gate: RateGate, n: int, tokens: int = 1) -> tuple[float, int]:
    """(seconds taken, acquisitions that had to wait) for `n` calls through `gate` at once."""
    blocked = 0
    original = AsyncLimiter.has_capacity

    def counting(self: AsyncLimiter, amount: float = 1) -> bool:
        nonlocal blocked
        has = original(self, amount)
        blocked += not has
        return has

    start = time.perf_counter()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(AsyncLimiter, "has_capacity", counting)
        await asyncio.gather(*(gate.wait(tokens) for _ in range(n)))
    return time.perf_counter() - start, blocked


async def test_no_limits_never_wait() -> None:
    gate = RateGate(RateLimits())
    assert not gate.counts_tokens
    assert (await timed_waits(gate, 5000, tokens=10**9))[1] == 0


async def test_rpm_lets_a_burst_of_rpm_through_at_once() -> None:
    # rpm=600: 20 calls are well inside the initial burst of 600 → no waiting at all.
    assert (await timed_waits(RateGate(RateLimits(requests_per_minute=600)), 20))[1] == 0


async def test_rpm_beyond_the_burst_goes_at_rpm_over_60_a_second() -> None:
    # 600 at once, then 10/s: the 10 calls past the burst wait, about 1 s in all.
    elapsed, blocked = await timed_waits(RateGate(RateLimits(requests_per_minute=600)), 610)
    assert blocked >= 10
    assert elapsed >= 0.85


async def test_rpm_through_the_caller() -> None:
    provider = FakeProvider("f", "Final answer: 2", max_concurrency=64)
    caller = ModelCaller(provider, limits=RateLimits(requests_per_minute=1200))
    prompt = Prompt(messages=(Message("user", "1+1"),), variant="B", lang="en")
    start = time.perf_counter()
    results = await asyncio.gather(
        *(caller.call(prompt, GenerationParams(max_tokens=4)) for _ in range(1220))
    )
    elapsed = time.perf_counter() - start
    assert all(isinstance(r, CallSuccess) for r in results)
    assert provider.calls == 1220
    assert elapsed >= 0.85  # 1200 in the burst, 20 more at 20/s


class RecordingLimiter(AsyncLimiter):
    made: ClassVar[list[RecordingLimiter]] = []

    def __init__(self, max_rate: float, time_period: float = 60) -> None:
        super().__init__(max_rate, time_period)
        self.amounts: list[float] = []
        RecordingLimiter.made.append(self)

    async def acquire(self, amount: float = 1) -> None:
        self.amounts.append(amount)
        await super().acquire(amount)


@pytest.fixture
def limiters(monkeypatch: pytest.MonkeyPatch) -> list[RecordingLimiter]:
    RecordingLimiter.made = []
    monkeypatch.setattr(rate_limit, "AsyncLimiter", RecordingLimiter)
    return RecordingLimiter.made


async def test_tpm_counts_prompt_estimate_plus_max_tokens(
    limiters: list[RecordingLimiter],
) -> None:
    messages = (Message("system", "Be brief." * 10), Message("user", "What is 6 * 7? 答案是"))
    prompt = Prompt(messages=messages, variant="B", lang="en")
    params = GenerationParams(max_tokens=50)
    caller = ModelCaller(FakeProvider("f", "42"), limits=RateLimits(tokens_per_minute=100_000))
    assert isinstance(await caller.call(prompt, params), CallSuccess)
    (tokens,) = limiters
    expected = sum(estimate_tokens(m.content) for m in messages) + 50
    assert tokens.amounts == [expected]
    assert tokens.max_rate == 100_000 and tokens.time_period == 60.0


async def test_tpm_and_rpm_are_separate_buckets(limiters: list[RecordingLimiter]) -> None:
    gate = RateGate(RateLimits(requests_per_minute=100, tokens_per_minute=5000))
    await gate.wait(321)
    requests, tokens = limiters
    assert (requests.max_rate, requests.amounts) == (100, [1])
    assert (tokens.max_rate, tokens.amounts) == (5000, [321.0])


async def test_tpm_clamps_a_call_above_the_limit(limiters: list[RecordingLimiter]) -> None:
    gate = RateGate(RateLimits(tokens_per_minute=100))
    await asyncio.wait_for(gate.wait(5_000), 1.0)  # not ValueError, not a wait forever
    assert limiters[0].amounts == [100.0]


async def test_unclamped_amount_would_be_refused_by_aiolimiter() -> None:
    # Why the clamp is needed: aiolimiter refuses an amount above max_rate outright.
    with pytest.raises(ValueError):
        await AsyncLimiter(100, 60).acquire(101)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 4),
        ("a", 5),
        ("abcd", 5),
        ("abcde", 6),
        ("x" * 400, 104),
        ("你好", 6),  # 2 CJK + 0 + 4
        ("日本語abc", 8),  # 3 CJK + ceil(3/4) + 4
        ("ひらがなカタカナ", 12),  # kana count one a token
        ("ＡＢＣ", 7),  # full-width forms count one a token
        ("答案是 42。", 9),  # 答案是 + 。 (U+3002) = 4 CJK, " 42" → 1, + 4
    ],
)
def test_estimate_tokens_table(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_estimate_tokens_hangul_counts_like_cjk() -> None:
    assert estimate_tokens("안녕하세요") == 5 + 4
