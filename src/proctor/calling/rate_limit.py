"""Requests-per-minute and tokens-per-minute limits for one model (leaky buckets, aiolimiter)."""

from __future__ import annotations

from dataclasses import dataclass

from aiolimiter import AsyncLimiter


@dataclass(frozen=True)
class RateLimits:
    """None means no limit. Tokens are counted before the call as the prompt's estimate plus
    max_tokens, the most the call can use."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


class RateGate:
    def __init__(self, limits: RateLimits) -> None:
        rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
        self._requests = AsyncLimiter(rpm, 60.0) if rpm else None
        self._tokens = AsyncLimiter(tpm, 60.0) if tpm else None
        self._tpm = tpm or 0.0

    @property
    def counts_tokens(self) -> bool:
        """Whether `wait` uses its token count (estimating it costs a pass over the prompt)."""
        return self._tokens is not None

    async def wait(self, tokens: int) -> None:
        if self._requests is not None:
            await self._requests.acquire(1)
        if self._tokens is not None:
            await self._tokens.acquire(min(float(tokens), self._tpm))


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
