"""The grade of a call that never returned a reply: the same for every scorer."""

from __future__ import annotations

from proctor.types import Score

CALL_FAILED_RULE = (
    "The model call failed, so there is no answer to grade; it is never counted as wrong."
)


def call_failed_score(error: str) -> Score:
    """`call_failed`, with the stored error: never a wrong answer."""
    return Score("call_failed", "call_failed", f"{CALL_FAILED_RULE} Error: {error or 'unknown'}")
