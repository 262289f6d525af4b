"""Around any provider: bounded concurrency, a per-request timeout, and retries with backoff.

A call either gives a Completion or, after the last allowed attempt, a CallFailure with its
reason; it never raises a ProviderError to the runner and never turns a failure into text."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from proctor.calling.retry import RetryPolicy
from proctor.errors import ProviderError, Transient
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


class ModelCaller:
    """Calls one model with at most `concurrency` requests in flight."""

    def __init__(
        self,
        provider: Provider,
        *,
        concurrency: int | None = None,
        policy: RetryPolicy | None = None,
        seed: int = 0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.policy = policy or RetryPolicy()
        self._limit = asyncio.Semaphore(max(1, concurrency or provider.max_concurrency))
        self._rng = random.Random(seed)
        self._sleep = sleep
        self.retries = 0

    async def call(self, prompt: Prompt, params: GenerationParams) -> CallResult:
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self._limit:
                    completion = await asyncio.wait_for(
                        self.provider.complete(prompt, params), timeout=params.timeout_s
                    )
                return CallSuccess(completion, attempt)
            except TimeoutError:
                error: ProviderError = Transient(
                    f"no reply within the {params.timeout_s:g} s request timeout"
                )
            except ProviderError as e:
                error = e
            if not self.policy.should_retry(error, attempt):
                return CallFailure(str(error), type(error).__name__, attempt)
            self.retries += 1
            await self._sleep(self.policy.delay(error, attempt, self._rng))
