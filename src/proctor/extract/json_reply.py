"""A reply that should be one JSON object → the object, or the exact reason it is not one.

Decisions, stated once:
- Strict reading (`read_json_reply`): after trimming whitespace the reply is one JSON object, or
  one markdown code fence (```json … ``` or ``` … ```) holding one JSON object and nothing else.
  A fence is formatting; text before or after the object (an explanation, a second object) is
  not, and makes the reply invalid with the parser's own message and position.
- JSON means RFC 8259: NaN and Infinity are refused, a top-level value that is not an object is
  refused, and a key written twice in one object is recorded (`duplicates`) because a parser
  would silently keep only the last value.
- Lenient reading (`first_json_object`): the first JSON object anywhere in the text, for a
  judge's verdict and for saying what an invalid reply would have contained.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_FENCE = re.compile(r"\A```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n?[ \t]*```\Z", re.DOTALL)
_ANY_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\n(.*?)```", re.DOTALL)
_PREVIEW = 40


@dataclass(frozen=True)
class JsonReply:
    """`value` is the parsed object (None when invalid); `error` says why it is invalid."""

    value: dict[str, Any] | None
    error: str = ""
    fenced: bool = False
    duplicates: tuple[tuple[str, tuple[Any, ...]], ...] = field(default=())
    """(key, every value written for it) for each key written more than once in one object."""

    @property
    def ok(self) -> bool:
        return self.value is not None


class _Duplicates:
    """An object_pairs_hook that keeps the last value (like `json`) and records repeats."""

    def __init__(self) -> None:
        self.found: list[tuple[str, tuple[Any, ...]]] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: dict[str, list[Any]] = {}
        for key, value in pairs:
            seen.setdefault(key, []).append(value)
            out[key] = value
        for key, values in seen.items():
            if len(values) > 1:
                self.found.append((key, tuple(values)))
        return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _position(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line} column {column}"


def _preview(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= _PREVIEW else one_line[: _PREVIEW - 1] + "…"


def read_json_reply(text: str) -> JsonReply:
    """The strict reading: see the module docstring."""
    body = text.strip()
    if not body:
        return JsonReply(None, "the reply is empty")
    fenced = False
    match = _FENCE.match(body)
    if match:
        body, fenced = match.group(2).strip(), True
    elif "```" in body and body[0] not in "{[":
        return JsonReply(None, "text outside the code fence: " + _outside_fence(body))
    hook = _Duplicates()
    decoder = json.JSONDecoder(object_pairs_hook=hook, parse_constant=_no_constant)
    try:
        value, end = decoder.raw_decode(body)
    except json.JSONDecodeError as e:
        start = body.find("{")
        if e.pos == 0 and start > 0 and first_json_object(body) is not None:
            before = _preview(body[:start])
            return JsonReply(None, f"text before the JSON at line 1 column 1: {before!r}", fenced)
        return JsonReply(None, f"not JSON: {e.msg} at {_position(body, e.pos)}", fenced)
    except ValueError as e:  # NaN / Infinity
        return JsonReply(None, f"not JSON: {e}", fenced)
    rest = body[end:]
    if rest.strip():
        where = _position(body, end + (len(rest) - len(rest.lstrip())))
        return JsonReply(None, f"extra text after the JSON at {where}: {_preview(rest)!r}", fenced)
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else f"a {type(value).__name__}"
        return JsonReply(None, f"expected a JSON object, got {kind}", fenced)
    return JsonReply(value, "", fenced, tuple(hook.found))


def _outside_fence(body: str) -> str:
    start = body.find("```")
    before = body[:start].strip()
    if before:
        return repr(_preview(before)) + " before it"
    end = body.rfind("```")
    return repr(_preview(body[end + 3 :])) + " after it"


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (inside a code fence first, else anywhere), or None."""
    for candidate in [m.group(1) for m in _ANY_FENCE.finditer(text)] + [text]:
        start = candidate.find("{")
        decoder = json.JSONDecoder(parse_constant=_no_constant)
        while start != -1:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except ValueError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    return None
