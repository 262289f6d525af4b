"""A replies file and its one rule: the longest marker the prompt contains wins."""

from __future__ import annotations

import json
from pathlib import Path

Replies = tuple[tuple[str, str], ...]
"""(marker, reply) pairs, in the file's order."""

NO_REPLY = "The stub has no scripted reply for this prompt."
"""The reply to a prompt that contains no marker. Word for word what `python -m proctor.stub
--replies` answered before this room replaced it, so runs recorded then compare with runs now."""


def load_replies(path: str | Path) -> Replies:
    """The (marker, reply) pairs of a JSON object of strings; ValueError naming the file when it
    cannot be read, is not JSON, is not an object of strings, or is empty."""
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"--replies {path}: {e}") from None
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise ValueError(f"--replies {path}: must be a JSON object of strings")
    if not table:
        raise ValueError(f"--replies {path}: has no replies (an empty object)")
    return tuple(table.items())


def reply_for(replies: Replies, prompt: str) -> str:
    """The reply of the longest marker that `prompt` (the last user message) contains; between
    markers of one length, the greatest reply; `NO_REPLY` when it contains none."""
    found = [(len(marker), reply) for marker, reply in replies if marker in prompt]
    return max(found)[1] if found else NO_REPLY
