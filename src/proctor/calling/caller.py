"""Around any provider: rate limits, adaptive concurrency, a per-request timeout, retries with
backoff, and a circuit breaker.

A call either gives a Completion or, after the last allowed attempt, a CallFailure with its
reason; it never raises a ProviderError to the runner and never turns a failure into text.
Both have passed `calling.boundary` (size cap, Unicode repair, keys scrubbed, counts checked)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from proctor.calling.adaptive import AdaptiveConcurrency
from proctor.calling.boundary import accept, accept_error
from proctor.calling.breaker import CircuitBreaker
from proctor.calling.rate_limit import RateGate, RateLimits, estimate_tokens
from proctor.calling.retry import RetryPolicy
from proctor.errors import ProviderError, RateLimited, Transient
from proctor.providers.base import Provider
from proctor.types import Completion, GenerationParams, Prompt


@dataclass(frozen=True)
class CallSuccess:
    completion: Completion
    attempts: int


@dataclass(frozen=True)
class CallFailure:
    error: str
    error_type: str
    attempts: int


CallResult = CallSuccess | CallFailure
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class CallStats:
    """What calling one model took, for the report."""

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    rate_limited: int = 0
    failures_by_type: dict[str, int] = field(default_factory=dict)


class ModelCaller:
    """Calls one model with at most `concurrency` requests in flight (lowered on 429, raised
    again on success), within its rate limits, and stops it when its circuit breaker opens."""

    def __init__(
        self,
        provider: Provider,
        *,
        concurrency: int | None = None,
        policy: RetryPolicy | None = None,
        limits: RateLimits | None = None,
        breaker: CircuitBreaker | None = None,
        seed: int = 0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.policy = policy or RetryPolicy()
        self.concurrency = AdaptiveConcurrency(concurrency or provider.max_concurrency)
        self.breaker = breaker or CircuitBreaker()
        self._gate = RateGate(limits or RateLimits())
        self._rng = random.Random(seed)
        self._sleep = sleep
        self.stats = CallStats()

    @property
    def retries(self) -> int:
        return self.stats.retries

    async def call(self, prompt: Prompt, params: GenerationParams) -> CallResult:
        self.stats.calls += 1
        tokens = 0
        if self._gate.counts_tokens:
            tokens = sum(estimate_tokens(m.content) for m in prompt.messages) + params.max_tokens
        attempt = 0
        while True:
            if self.breaker.is_open:
                return self._fail(
                    f"not asked: the model was stopped by its circuit breaker: "
                    f"{self.breaker.reason}",
                    "CircuitOpen",
                    attempt,
                )
            await self.concurrency.acquire()
            try:
                # Paced last, its slot held: calls that waited for a slot then go as the
                # limits space them, never all at once when several slots free up together.
                await self._gate.wait(tokens)
            except BaseException:
                await self.concurrency.release()
                raise
            if self.breaker.is_open:  # it opened while this call waited for its turn
                await self.concurrency.release()
                continue
            attempt += 1
            self.stats.attempts += 1
            try:
                completion = await asyncio.wait_for(
                    self.provider.complete(prompt, params), timeout=params.timeout_s
                )
                completion = accept(completion, params.max_reply_bytes)
            except TimeoutError:
                error: ProviderError = Transient(
                    f"no reply within the {params.timeout_s:g} s request timeout"
                )
            except ProviderError as e:
                error = e
            else:
                self.breaker.record_success()
                await self.concurrency.on_success()
                return CallSuccess(completion, attempt)
            finally:
                await self.concurrency.release()
            if isinstance(error, RateLimited):
                self.stats.rate_limited += 1
                self.concurrency.on_rate_limited()
            self.breaker.record_failure(error)
            if not self.policy.should_retry(error, attempt) or self.breaker.is_open:
                return self._fail(str(error), type(error).__name__, attempt)
            self.stats.retries += 1
            await self._sleep(self.policy.delay(error, attempt, self._rng))

    def _fail(self, message: str, error_type: str, attempts: int) -> CallFailure:
        by_type = self.stats.failures_by_type
        by_type[error_type] = by_type.get(error_type, 0) + 1
        return CallFailure(accept_error(message), error_type, attempts)
