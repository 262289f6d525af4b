"""Retries for call failures only: connection errors, timeouts, 429 and 5xx. Never for a wrong
answer (a provider that returned text has succeeded, whatever the text says)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from proctor.errors import ProviderError, RateLimited


@dataclass(frozen=True)
class RetryPolicy:
    """At most `max_attempts` calls; waits grow as base·2^k with full jitter, capped at
    `max_delay_s`; a server's Retry-After is honoured (up to `max_retry_after_s`)."""

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    max_retry_after_s: float = 120.0

    def should_retry(self, error: ProviderError, attempt: int) -> bool:
        return error.retryable and attempt < self.max_attempts

    def delay(self, error: ProviderError, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if isinstance(error, RateLimited) and error.retry_after_s is not None:
            return min(error.retry_after_s, self.max_retry_after_s)
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return rng.uniform(0.0, ceiling)
