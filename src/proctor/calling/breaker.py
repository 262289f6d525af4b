"""A circuit breaker per model: stop asking a model that cannot answer, so one dead endpoint does
not burn the run's time while the other models go on."""

from __future__ import annotations

from proctor.calling.boundary import accept_error
from proctor.errors import AuthError, ProviderError, RateLimited


class CircuitBreaker:
    """Opens at once on an authentication error (no retry can fix a key), or after `threshold`
    failed attempts in a row with no success between them; rate-limit answers do not count (they
    ask us to slow down, which adaptive concurrency does). Once open it stays open for the run."""

    def __init__(self, threshold: int = 25) -> None:
        self.threshold = threshold
        self.consecutive = 0
        self.reason: str | None = None

    @property
    def is_open(self) -> bool:
        return self.reason is not None

    def record_success(self) -> None:
        self.consecutive = 0

    def record_failure(self, error: ProviderError) -> None:
        if self.reason is not None or isinstance(error, RateLimited):
            return
        if isinstance(error, AuthError):
            self.reason = accept_error(f"authentication failed ({error})")
            return
        self.consecutive += 1
        if self.threshold > 0 and self.consecutive >= self.threshold:
            self.reason = accept_error(
                f"{self.consecutive} failed attempts in a row, the last: {error}"
            )
