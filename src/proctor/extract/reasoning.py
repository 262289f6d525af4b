"""Reasoning traces (`<think>…</think>`) are not the reply: they are removed before extraction."""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """The reply without its reasoning trace.

    A closing tag with no opening one means the template opened the trace in the prompt: the
    reply is what follows it. An opening tag never closed means the reply ended inside its
    reasoning: nothing after it is an answer.
    """
    if "<" not in text:  # every tag starts with one
        return text
    text = _BLOCK.sub("", text)
    closing = list(_CLOSE.finditer(text))
    if closing:
        text = text[closing[-1].end() :]
    opening = _OPEN.search(text)
    if opening:
        text = text[: opening.start()]
    return text
