"""The circuit breaker alone, inside ModelCaller, and inside a whole `execute` run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from proctor.calling.breaker import CircuitBreaker
from proctor.calling.caller import CallFailure, CallSuccess, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import AuthError, BadRequest, ProviderError, RateLimited, Transient
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams, Message, Prompt, Sample

PROMPT = Prompt(messages=(Message("user", "1 + 1"),), variant="B", lang="en")
PARAMS = GenerationParams(max_tokens=8, timeout_s=5.0)

T, R, A, B, S = "transient", "rate", "auth", "bad", "success"


def feed(breaker: CircuitBreaker, events: str) -> None:
    for ch in events:
        if ch == "S":
            breaker.record_success()
        else:
            error: ProviderError = {
                "T": Transient("503"),
                "R": RateLimited("429"),
                "A": AuthError("401 bad key"),
                "B": BadRequest("400"),
            }[ch]
            breaker.record_failure(error)


CASES = [
    # (threshold, events, open after?)
    (3, "", False),
    (3, "TT", False),
    (3, "TTT", True),
    (3, "BBB", True),
    (3, "TBT", True),
    (3, "TTSTT", False),
    (3, "TTSTTT", True),
    (3, "RRRRRRRRRR", False),
    (3, "TTRRRRR", False),
    (3, "TRTRT", True),  # rate limits neither count nor reset the count
    (3, "A", True),
    (1, "T", True),
    (0, "T" * 100, False),
    (0, "A", True),
    (-1, "T" * 100, False),
    (3, "TTTSSSS", True),  # once open it stays open
    (3, "ASSS", True),
]


@pytest.mark.parametrize(("threshold", "events", "opened"), CASES)
def test_breaker_table(threshold: int, events: str, opened: bool) -> None:
    b = CircuitBreaker(threshold)
    feed(b, events)
    assert b.is_open is opened
    assert (b.reason is not None) is opened


def test_auth_reason_names_the_error() -> None:
    b = CircuitBreaker(5)
    feed(b, "TA")
    assert b.reason is not None
    assert "authentication" in b.reason
    assert "401 bad key" in b.reason


def test_reason_of_the_first_opening_is_kept() -> None:
    b = CircuitBreaker(2)
    feed(b, "TT")
    first = b.reason
    feed(b, "ATTB")
    assert b.reason == first
    assert first is not None and "2 failed attempts" in first


# -- inside ModelCaller --------------------------------------------------------------------------


async def no_sleep(_s: float) -> None:
    return None


async def test_caller_calls_after_opening_fail_circuit_open_without_calling() -> None:
    provider = FakeProvider("dead", AuthError("HTTP 401: bad key"), max_concurrency=1)
    caller = ModelCaller(provider, concurrency=1, breaker=CircuitBreaker(10), sleep=no_sleep)
    first = await caller.call(PROMPT, PARAMS)
    assert isinstance(first, CallFailure)
    assert (first.error_type, first.attempts) == ("AuthError", 1)
    rest = [await caller.call(PROMPT, PARAMS) for _ in range(5)]
    assert provider.calls == 1
    for r in rest:
        assert isinstance(r, CallFailure)
        assert (r.error_type, r.attempts) == ("CircuitOpen", 0)
        assert "bad key" in r.error
    assert caller.stats.failures_by_type == {"AuthError": 1, "CircuitOpen": 5}


async def test_caller_pending_calls_fail_circuit_open_without_calling() -> None:
    provider = FakeProvider("dead", AuthError("HTTP 401: bad key"), max_concurrency=1)
    caller = ModelCaller(provider, concurrency=1, breaker=CircuitBreaker(10), sleep=no_sleep)
    results = await asyncio.gather(*(caller.call(PROMPT, PARAMS) for _ in range(6)))
    assert provider.calls == 1
    first, rest = results[0], results[1:]
    assert isinstance(first, CallFailure)
    assert (first.error_type, first.attempts) == ("AuthError", 1)
    for r in rest:
        assert isinstance(r, CallFailure)
        assert r.error_type == "CircuitOpen"
        assert r.attempts == 0
        assert "bad key" in r.error
    assert caller.stats.failures_by_type == {"AuthError": 1, "CircuitOpen": 5}


async def test_caller_threshold_counts_attempts_across_calls() -> None:
    provider = FakeProvider("flaky", Transient("HTTP 503"), max_concurrency=1)
    caller = ModelCaller(
        provider,
        concurrency=1,
        policy=RetryPolicy(max_attempts=2),
        breaker=CircuitBreaker(5),
        sleep=no_sleep,
    )
    results = [await caller.call(PROMPT, PARAMS) for _ in range(5)]
    # attempts 1,2 | 3,4 | 5 → open: the third call stops after its first attempt
    assert provider.calls == 5
    assert [r.attempts for r in results] == [2, 2, 1, 0, 0]
    assert [type(r).__name__ for r in results] == ["CallFailure"] * 5
    assert [r.error_type for r in results if isinstance(r, CallFailure)] == [
        "Transient", "Transient", "Transient", "CircuitOpen", "CircuitOpen",
    ]  # fmt: skip


async def test_caller_rate_limits_never_open_the_breaker() -> None:
    provider = FakeProvider(
        "busy", [RateLimited("429", retry_after_s=0)] * 30 + ["ok"], max_concurrency=1
    )
    caller = ModelCaller(
        provider,
        concurrency=1,
        policy=RetryPolicy(max_attempts=31),
        breaker=CircuitBreaker(2),
        sleep=no_sleep,
    )
    result = await caller.call(PROMPT, PARAMS)
    assert isinstance(result, CallSuccess)
    assert result.attempts == 31
    assert not caller.breaker.is_open


async def test_caller_success_resets_the_count() -> None:
    script = [Transient("503"), Transient("503"), "ok"] * 4
    provider = FakeProvider("wobbly", script, max_concurrency=1)
    caller = ModelCaller(
        provider,
        concurrency=1,
        policy=RetryPolicy(max_attempts=3),
        breaker=CircuitBreaker(3),
        sleep=no_sleep,
    )
    results = [await caller.call(PROMPT, PARAMS) for _ in range(4)]
    assert all(isinstance(r, CallSuccess) for r in results)
    assert not caller.breaker.is_open


# -- inside a run: the other models go on --------------------------------------------------------

SAMPLES = tuple(
    Sample(id=f"q{i}", input=f"{i} + 100", target=str(i + 100), difficulty="easy")
    for i in range(12)
)
DEAD, ALIVE = "fake/dead", "fake/alive"


def right(prompt: Prompt) -> str:
    text = prompt.messages[-1].content
    s = next(s for s in SAMPLES if text.endswith(f"Problem: {s.input}"))
    return f"Final answer: {s.target}"


async def test_execute_stops_only_the_dead_model(tmp_path: Path) -> None:
    dead = FakeProvider(DEAD, AuthError("HTTP 401: invalid key"), max_concurrency=2)
    alive = FakeProvider(ALIVE, right, max_concurrency=2)
    plan = RunPlan(
        task=TASK,
        samples=SAMPLES,
        dataset_hash="sha256:hardening-breaker",
        generator_version="test",
        models=(DEAD, ALIVE),
        variant="B",
        lang="en",
        params=GenerationParams(timeout_s=5.0),
        results_dir=tmp_path / "results",
        calling=Calling(retry=RetryPolicy(max_attempts=3, base_delay_s=0.0), breaker_threshold=25),
    )
    outcome = await execute(plan, providers={DEAD: dead, ALIVE: alive})
    with RunStore.open(plan.results_dir) as store:
        recs = store.records(outcome.run_id)
    by_model = {m: [r for r in recs if r.model == m] for m in (DEAD, ALIVE)}
    assert len(by_model[ALIVE]) == len(SAMPLES)
    assert all(r.status == "ok" for r in by_model[ALIVE])
    assert alive.calls == len(SAMPLES)
    assert len(by_model[DEAD]) == len(SAMPLES)
    assert all(r.status == "call_failed" for r in by_model[DEAD])
    for r in by_model[DEAD]:
        assert r.error.startswith(("AuthError: ", "CircuitOpen: ")), r.error
        assert "invalid key" in r.error
    opened = [r for r in by_model[DEAD] if r.error.startswith("CircuitOpen")]
    assert opened and all(r.attempts == 0 for r in opened)
    # Only what was in flight when the breaker opened reached the provider (no retries on auth).
    assert dead.calls <= 2
    reports = {r.model: r for r in outcome.models}
    assert reports[DEAD].stopped is not None and "authentication" in reports[DEAD].stopped
    assert reports[ALIVE].stopped is None
