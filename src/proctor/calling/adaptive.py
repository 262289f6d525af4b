"""Adaptive concurrency: how many calls to one model may be in flight right now."""

from __future__ import annotations

import asyncio


class AdaptiveConcurrency:
    """Additive increase, multiplicative decrease: at most `limit` calls in flight; a rate-limit
    answer halves the limit (never below 1), and `limit` successes in a row raise it by one, back
    up to `ceiling`."""

    def __init__(self, ceiling: int) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = self.ceiling
        self.lowest = self.ceiling
        self._in_flight = 0
        self._successes = 0
        self._waiting = 0
        """Calls waiting for a slot (in `acquire`, for the condition or inside it)."""
        self._cond = asyncio.Condition()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def acquire(self) -> None:
        # A free slot and nobody before us: taken at once (one event loop, no await between
        # the test and the count), so the usual call pays no lock; else wait in line.
        if self._in_flight < self.limit and not self._waiting:
            self._in_flight += 1
            return
        self._waiting += 1
        try:
            async with self._cond:
                await self._cond.wait_for(lambda: self._in_flight < self.limit)
                self._in_flight += 1
        finally:
            self._waiting -= 1

    async def release(self) -> None:
        self._in_flight -= 1
        if not self._waiting:
            return
        async with self._cond:
            # One slot freed wakes one waiter: waking all of them makes every release cost
            # O(waiting calls), and a run of N samples O(N²).
            self._cond.notify(1)

    def on_rate_limited(self) -> None:
        self.limit = max(1, self.limit // 2)
        self.lowest = min(self.lowest, self.limit)
        self._successes = 0

    async def on_success(self) -> None:
        if self.limit >= self.ceiling:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self._successes = 0
            async with self._cond:
                self.limit += 1
                self._cond.notify(1)
