"""Requests- and tokens-per-minute gates (pacers: calls spread evenly over the minute) and the
token estimate.

The pacers' arithmetic is checked on a clock the test moves by hand, so nothing here depends on
how fast the machine is; the one test on the real clock bounds the time from below only (no
machine is ever faster than the limiter allows)."""

from __future__ import annotations

import asyncio
import time

import pytest

from proctor.calling import rate_limit
from proctor.calling.caller import CallSuccess, ModelCaller
from proctor.calling.rate_limit import BURST_S, Pacer, RateGate, RateLimits, estimate_tokens
from proctor.providers.fake import FakeProvider
from proctor.types import GenerationParams, Message, Prompt


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def starts(gate: RateGate, clock: Clock, amounts: list[int]) -> list[float]:
    """When each call goes, all in line from now, as `RateGate.wait` lets them: each waits its
    delay (the clock moves on by it), then is counted."""
    origin, went = clock.now, []
    for a in amounts:
        clock.now += gate.delay(a)
        gate.take(a)
        went.append(round(clock.now - origin, 9))
    return went


def test_no_limits_never_wait() -> None:
    gate = RateGate(RateLimits())
    assert not gate.counts_tokens
    assert all(gate.delay(10**9) == 0.0 for _ in range(5000))


def test_rpm_spaces_calls_60_over_n_apart_not_a_minute_at_once() -> None:
    clock = Clock()
    gate = RateGate(RateLimits(requests_per_minute=600), clock)
    # 10 a second, a burst of max(1, 600 * 0.1 / 60) = 1: one every 0.1 s from the first.
    assert starts(gate, clock, [1] * 6) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    clock.now += gate.delay(1) + 0.03  # the 7th wakes up late (a busy event loop) and goes
    gate.take(1)
    assert starts(gate, clock, [1, 1]) == [0.1, 0.2]  # a whole 0.1 s after it: no catching up


def test_a_high_rpm_lets_a_tenth_of_a_second_through_at_once() -> None:
    clock = Clock()
    gate = RateGate(RateLimits(requests_per_minute=6000), clock)  # 100 a second, burst 10
    got = starts(gate, clock, [1] * 13)
    assert got[:10] == [0.0] * 10 and got[10:] == [0.01, 0.02, 0.03]


@pytest.mark.parametrize("rpm", [1, 30, 60, 61, 600, 1000, 6000, 60_000])
def test_no_second_carries_more_than_rpm_over_60_plus_the_burst(rpm: int) -> None:
    clock = Clock()
    gate = RateGate(RateLimits(requests_per_minute=rpm), clock)
    times = starts(gate, clock, [1] * min(3000, rpm * 2 + 5))
    burst = max(1.0, rpm / 60 * BURST_S)
    busiest = max(sum(1 for u in times if t <= u < t + 1.0) for t in times)
    assert busiest <= rpm / 60 + burst
    assert times[-1] >= (len(times) - burst) * 60 / rpm - 1e-6  # and nobody is early


def test_an_idle_gate_lets_the_next_call_go_at_once() -> None:
    clock = Clock()
    gate = RateGate(RateLimits(requests_per_minute=60), clock)
    assert starts(gate, clock, [1, 1]) == [0.0, 1.0]
    clock.now += 30.0
    assert gate.delay(1) == 0.0


def test_tpm_spaces_tokens_and_a_call_over_the_bucket_is_neither_refused_nor_cut() -> None:
    clock = Clock()
    gate = RateGate(RateLimits(tokens_per_minute=6000), clock)  # 100 tokens a second, burst 10
    assert gate.counts_tokens
    # 500 tokens (over the bucket): at once on an empty bucket; the next waits for all 500.
    assert starts(gate, clock, [500, 5, 5]) == [0.0, 4.95, 5.0]


def test_rpm_and_tpm_hold_one_start_in_both_lines() -> None:
    clock = Clock()
    gate = RateGate(RateLimits(requests_per_minute=600, tokens_per_minute=6000), clock)
    # tokens bind first (2 s for 200), then requests (0.1 s each) for small calls.
    assert starts(gate, clock, [200, 1, 1, 1]) == [0.0, 1.91, 2.01, 2.11]


async def test_rpm_through_the_caller_takes_at_least_the_spacing() -> None:
    provider = FakeProvider("f", "Final answer: 2", max_concurrency=64)
    caller = ModelCaller(provider, limits=RateLimits(requests_per_minute=1200))
    prompt = Prompt(messages=(Message("user", "1+1"),), variant="B", lang="en")
    start = time.perf_counter()
    results = await asyncio.gather(
        *(caller.call(prompt, GenerationParams(max_tokens=4)) for _ in range(24))
    )
    elapsed = time.perf_counter() - start
    assert all(isinstance(r, CallSuccess) for r in results)
    assert provider.calls == 24
    assert elapsed >= 1.1  # 20 a second, a burst of 2: 22 gaps of 0.05 s at least


async def test_tpm_counts_prompt_estimate_plus_max_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[float] = []
    original = Pacer.take

    def recording(self: Pacer, amount: float, start: float) -> None:
        taken.append(amount)
        original(self, amount, start)

    monkeypatch.setattr(rate_limit.Pacer, "take", recording)
    messages = (Message("system", "Be brief." * 10), Message("user", "What is 6 * 7? 答案是"))
    prompt = Prompt(messages=messages, variant="B", lang="en")
    params = GenerationParams(max_tokens=50)
    caller = ModelCaller(FakeProvider("f", "42"), limits=RateLimits(tokens_per_minute=100_000))
    assert isinstance(await caller.call(prompt, params), CallSuccess)
    expected = sum(estimate_tokens(m.content) for m in messages) + 50
    assert taken == [expected]


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
