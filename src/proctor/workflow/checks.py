"""Pure: does a workflow's required output pass its check? Each check is one sentence:

- `nonempty`: the output holds something other than white space.
- `contains`: every listed text appears in the output, exactly as written.
- `json`: the output is one JSON object (strict reading: `extract.json_reply`), no key is
  written twice in any object (a parser would keep only the last value), every key in `keys`
  is present, and the object is valid under `schema` (JSON Schema, draft 2020-12: types, enums,
  `minLength: 1` for non-empty, …), every violation listed with its path.
- `headings`: every listed heading is a Markdown heading of the document itself (CommonMark,
  ATX `## X` or setext), compared case-insensitively with white space collapsed; a heading
  inside a code fence, an indented code block or a block quote does not count.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from markdown_it import MarkdownIt

from proctor.extract.json_reply import read_json_reply

MAX_LISTED = 5
"""Violations listed per output; the rest are counted."""


def schema_problem(schema: Mapping[str, Any]) -> str:
    """ "" when `schema` is a valid JSON Schema, else why not (for the workflow loader)."""
    try:
        Draft202012Validator.check_schema(dict(schema))
    except SchemaError as e:
        return f"not a valid JSON Schema: {e.message}"
    outside = [ref for ref in _refs(schema) if not ref.startswith("#")]
    if outside:
        # grading never reaches the network or the disk: a schema is one self-contained file
        return f"the schema refers outside itself ({outside[0]!r}): only '#/…' references"
    return ""


def _refs(node: object) -> list[str]:
    if isinstance(node, Mapping):
        found = [str(v) for k, v in node.items() if k in ("$ref", "$dynamicRef")]
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def check_json(
    name: str, text: str, keys: Sequence[str], schema: Mapping[str, Any] | None
) -> list[str]:
    try:
        reply = read_json_reply(text)
    except RecursionError:  # the JSON parser recurses once per level of nesting
        return [f"{name}: not JSON: nested too deeply to read"]
    if reply.value is None:
        return [f"{name}: {reply.error}"]
    problems = [
        f"{name}: key {key!r} is written {len(values)} times ({', '.join(map(repr, values))})"
        for key, values in reply.duplicates
    ]
    problems += [f"{name}: JSON lacks {key!r}" for key in keys if key not in reply.value]
    if schema is not None:
        errors = sorted(
            Draft202012Validator(dict(schema)).iter_errors(reply.value),
            key=lambda e: ([str(p) for p in e.absolute_path], e.message),
        )
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(the object)"
            problems.append(f"{name}: {where}: {e.message}")
    if len(problems) > MAX_LISTED:
        extra = len(problems) - MAX_LISTED
        problems = [*problems[:MAX_LISTED], f"{name}: and {extra} more"]
    return problems


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def document_headings(text: str) -> list[str]:
    """The headings of the document (not inside code or quotes), as written."""
    tokens = _markdown().parse(text)
    return [
        tokens[i + 1].content.strip()
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.level == 0 and i + 1 < len(tokens)
    ]


def check_headings(name: str, text: str, wanted: Sequence[str]) -> list[str]:
    present = {_key(h) for h in document_headings(text)}
    missing = [h for h in wanted if _key(h) not in present]
    if not missing:
        return []
    hidden = _in_code(text, missing)
    why = f" ({', '.join(hidden)} only inside code or a quote)" if hidden else ""
    return [f"{name}: missing headings {', '.join(missing)}{why}"]


def _in_code(text: str, missing: Sequence[str]) -> list[str]:
    """The missing headings that are written as `# X` somewhere, i.e. hidden in code/quotes."""
    written = {
        _key(m.group(1)) for m in re.finditer(r"^[ \t>]*#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.M)
    }
    return [h for h in missing if _key(h) in written]


def check_contains(name: str, text: str, texts: Sequence[str]) -> list[str]:
    missing = [t for t in texts if t not in text]
    return [f"{name}: lacks {', '.join(repr(t) for t in missing)}"] if missing else []


def check_nonempty(name: str, text: str) -> list[str]:
    return [] if text.strip() else [f"{name}: empty"]
