"""Requests-per-minute and tokens-per-minute limits for one model, spread evenly over the minute.

Providers enforce their limits over seconds, not over the minute as a whole (60 a minute is
about one a second), so a minute's quota sent at once meets 429s the run caused itself. Each
limit is therefore a pacer: a leaky bucket that drains at the limit's rate (rate / 60 a second)
and holds `BURST_S` seconds' worth (at least one call's worth); calls wait in line for room in
it. At `--rpm N` calls go 60/N seconds apart, at most max(1, N/600) at once, so no second
carries more than N/60 + max(1, N/600) of them; `--tpm T` likewise in tokens. A call larger
than the bucket goes when the bucket is empty and the calls after it wait until its tokens have
drained (never refused, never counted short). Retries (`Retry-After`) and the adaptive
concurrency are around the pacer, unchanged: a call is paced once it holds a slot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

BURST_S = 0.1
"""How many seconds' worth of a limit may go at once (at least one call)."""


@dataclass(frozen=True)
class RateLimits:
    """None means no limit. Tokens are counted before the call as the prompt's estimate plus
    max_tokens, the most the call can use."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


class Pacer:
    """One limit of `per_minute` units, its bucket's level kept as the time it would be empty."""

    def __init__(self, per_minute: float) -> None:
        self.per_second = per_minute / 60.0
        self.burst = max(1.0, self.per_second * BURST_S)
        self._empty_at = 0.0

    def earliest(self, amount: float, now: float) -> float:
        """When a call of `amount` units fits in the bucket (a call larger than the bucket: when
        the bucket is empty)."""
        room = max(0.0, self.burst - amount) / self.per_second
        return max(now, self._empty_at - room)

    def take(self, amount: float, start: float) -> None:
        """Put a call of `amount` units that goes at `start` in the bucket."""
        self._empty_at = max(self._empty_at, start) + amount / self.per_second


class RateGate:
    """A model's limits. Calls wait in one line (first come, first served), each until both
    limits let it go; it is then counted at the moment it goes, so a late wake-up (a busy
    event loop) delays the calls after it instead of letting them catch up in a burst."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
        self._requests = Pacer(rpm) if rpm else None
        self._tokens = Pacer(tpm) if tpm else None
        self._clock = clock
        self._line = asyncio.Lock()

    @property
    def counts_tokens(self) -> bool:
        """Whether `wait` uses its token count (estimating it costs a pass over the prompt)."""
        return self._tokens is not None

    def _amounts(self, tokens: int) -> list[tuple[Pacer, float]]:
        pairs = ((self._requests, 1.0), (self._tokens, float(tokens)))
        return [(p, a) for p, a in pairs if p is not None]

    def delay(self, tokens: int) -> float:
        """How long a call of `tokens` must wait from now for both limits to let it go."""
        now = self._clock()
        return max((p.earliest(a, now) for p, a in self._amounts(tokens)), default=now) - now

    def take(self, tokens: int) -> None:
        """Count a call of `tokens` that goes now."""
        now = self._clock()
        for p, a in self._amounts(tokens):
            p.take(a, now)

    async def wait(self, tokens: int) -> None:
        if self._requests is None and self._tokens is None:
            return
        async with self._line:
            delay = self.delay(tokens)
            if delay > 0:
                await asyncio.sleep(delay)
            self.take(tokens)


def _dense(ch: str) -> bool:
    """CJK ideographs, kana, Hangul and full-width forms: about one token a character."""
    return (
        "\u3000" <= ch <= "\u9fff"
        or "\uac00" <= ch <= "\ud7af"
        or "\u1100" <= ch <= "\u11ff"
        or "\uff00" <= ch <= "\uffef"
    )


def estimate_tokens(text: str) -> int:
    """A cheap upper-leaning estimate: about 4 characters a token for Latin text, and one a
    token for CJK and Hangul characters."""
    cjk = sum(1 for ch in text if _dense(ch))
    return cjk + (len(text) - cjk + 3) // 4 + 4
