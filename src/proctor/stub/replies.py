"""Replayed replies: the stub answers each prompt with the reply recorded for it.

A replies file is JSONL, one object a line: {"prompt_contains": TEXT, "reply": TEXT}. A prompt
gets the reply of the longest `prompt_contains` found in it (a sample's own input, say), so a
test set run against the stub gets exactly the replies chosen for its samples.
"""

from __future__ import annotations

import json
from pathlib import Path

Replies = tuple[tuple[str, str], ...]
"""(text a prompt contains, the reply)."""

NO_REPLY = "The stub has no reply recorded for this prompt."


def load_replies(path: Path) -> Replies:
    """The replies of a JSONL file; a ValueError naming the line when one is malformed."""
    found: list[tuple[str, str]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, reply = item["prompt_contains"], item["reply"]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}:{number}: not a {{prompt_contains, reply}} object") from e
        if not isinstance(key, str) or not isinstance(reply, str) or not key:
            raise ValueError(f"{path}:{number}: prompt_contains and reply must be strings")
        found.append((key, reply))
    return tuple(found)


def reply_for(replies: Replies, prompt: str) -> str:
    """The reply of the longest recorded text the prompt contains, else `NO_REPLY`."""
    matching = [(len(key), reply) for key, reply in replies if key in prompt]
    return max(matching, key=lambda m: m[0])[1] if matching else NO_REPLY
