"""RetryPolicy: which failures are retried, how often, and how long to wait."""

from __future__ import annotations

import random

import pytest

from proctor.calling.retry import RetryPolicy
from proctor.errors import AuthError, BadRequest, ProviderError, RateLimited, Transient


@pytest.mark.parametrize("attempt", [1, 2, 3, 4, 5, 8, 12])
def test_delay_is_full_jitter_below_the_exponential_ceiling(attempt: int) -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=20.0)
    ceiling = min(20.0, 0.5 * 2 ** (attempt - 1))
    rng = random.Random(1234)
    delays = [policy.delay(Transient("x"), attempt, rng) for _ in range(500)]
    assert all(0.0 <= d <= ceiling for d in delays)
    # full jitter: the draws spread over the whole range, not pinned to one end
    assert min(delays) < 0.1 * ceiling
    assert max(delays) > 0.9 * ceiling


def test_delay_never_exceeds_max_delay() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=3.0)
    rng = random.Random(0)
    assert max(policy.delay(Transient("x"), 30, rng) for _ in range(200)) <= 3.0


def test_delays_are_reproducible_with_a_seeded_rng() -> None:
    policy = RetryPolicy()
    a = [policy.delay(Transient("x"), k, random.Random(7)) for k in range(1, 6)]
    b = [policy.delay(Transient("x"), k, random.Random(7)) for k in range(1, 6)]
    c = [policy.delay(Transient("x"), k, random.Random(8)) for k in range(1, 6)]
    assert a == b
    assert a != c


def test_retry_after_is_honoured() -> None:
    policy = RetryPolicy(max_delay_s=1.0)
    rng = random.Random(0)
    assert policy.delay(RateLimited("429", retry_after_s=7.5), 1, rng) == 7.5
    assert policy.delay(RateLimited("429", retry_after_s=0.0), 3, rng) == 0.0


def test_retry_after_is_capped() -> None:
    policy = RetryPolicy(max_retry_after_s=30.0)
    assert policy.delay(RateLimited("429", retry_after_s=3600.0), 1, random.Random(0)) == 30.0


def test_rate_limit_without_retry_after_backs_off_like_any_transient() -> None:
    policy = RetryPolicy(base_delay_s=0.5)
    rng = random.Random(3)
    delays = [policy.delay(RateLimited("429"), 2, rng) for _ in range(100)]
    assert all(0.0 <= d <= 1.0 for d in delays)
    assert len(set(delays)) > 1


@pytest.mark.parametrize("error", [AuthError("401"), BadRequest("400"), ProviderError("generic")])
def test_non_retryable_errors_are_not_retried(error: ProviderError) -> None:
    assert not RetryPolicy(max_attempts=10).should_retry(error, 1)


@pytest.mark.parametrize("error", [Transient("503"), RateLimited("429")])
def test_retryable_errors_are_retried_until_max_attempts(error: ProviderError) -> None:
    policy = RetryPolicy(max_attempts=3)
    assert policy.should_retry(error, 1)
    assert policy.should_retry(error, 2)
    assert not policy.should_retry(error, 3)
    assert not policy.should_retry(error, 4)


def test_one_attempt_means_no_retry() -> None:
    assert not RetryPolicy(max_attempts=1).should_retry(Transient("x"), 1)
