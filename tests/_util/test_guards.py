"""The pure guards at the edge, walked over their case tables (cases/boundary.json), and the
reply boundary itself on completions a provider may hand it."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from proctor._util.redact import REDACTED, register_secret, scrub
from proctor._util.untrusted import (
    Refused,
    json_depth_exceeds,
    loads_bounded,
    nesting_depth,
    repair_text,
    visible,
)
from proctor.calling.boundary import accept, accept_error
from proctor.errors import BadReply
from proctor.providers.http import parse_usage, token_count
from proctor.report.samples_csv import inert
from proctor.types import Completion, ToolCall, Usage

CASES = json.loads((Path(__file__).parent / "cases" / "boundary.json").read_text("utf-8"))
KEY = "sk-proctor-TABLE-KEY-1f4e9a7d20"
register_secret(KEY)


def rows(name: str) -> list[Any]:
    return list(CASES[name]["rows"])


@pytest.mark.parametrize(("raw", "expected"), rows("token_counts"))
def test_a_token_count_that_is_not_a_count_is_unknown(raw: str, expected: int | None) -> None:
    value = loads_bounded(raw, big_int_is_error=False)
    assert token_count(value) == expected
    usage = parse_usage(loads_bounded('{"p": ' + raw + "}", big_int_is_error=False), "p", "c")
    assert usage.prompt_tokens == expected and usage.completion_tokens is None


@pytest.mark.parametrize(("cell", "expected"), rows("inert_cells"))
def test_a_cell_a_spreadsheet_would_run_is_escaped(cell: str, expected: str) -> None:
    assert inert(cell) == expected


@pytest.mark.parametrize(("text", "expected"), rows("visible"))
def test_control_characters_are_printed_as_escapes(text: str, expected: str) -> None:
    assert visible(text) == expected


def test_json_depth_is_counted_outside_strings_only() -> None:
    assert not json_depth_exceeds('{"a": "' + "[" * 500 + '"}', 64)
    assert json_depth_exceeds("[" * 65 + "]" * 65, 64)
    assert not json_depth_exceeds("[" * 64 + "]" * 64, 64)
    assert json_depth_exceeds('{"a\\"[": ' + "[" * 70 + "]" * 70 + "}", 64)
    with pytest.raises(Refused):
        loads_bounded("[" * 100_000 + "]" * 100_000)
    with pytest.raises(Refused):
        loads_bounded("1" * 4301)
    assert loads_bounded("1" * 4300) == int("1" * 4300)


def test_a_yaml_alias_repeating_a_list_counts_as_too_deep() -> None:
    shared: list[object] = [1, 2]
    assert nesting_depth({"a": shared, "b": shared}) > 64
    looped: list[object] = []
    looped.append(looped)
    assert nesting_depth(looped) > 64
    assert nesting_depth({"a": [[1]], "b": [2]}) == 3


@pytest.mark.parametrize(
    "form",
    [
        KEY,
        KEY.replace("-", "\\u002d"),
        KEY.replace("-", "\\u002D"),
        KEY.replace("-", "%2d"),
        KEY.replace("-", "&#45;"),
        KEY.replace("-", "&#x2d;"),
        KEY.replace("-", "\\x2d"),
        "".join(f"\\u{ord(c):04x}" for c in KEY),
        KEY.encode().hex(),
        base64.b64encode(f"Authorization: Bearer {KEY}".encode()).decode(),
        base64.b64encode(f"Bearer {KEY}".encode()).decode(),
        base64.b64encode(f"x:{KEY}".encode()).decode(),
        base64.urlsafe_b64encode(f"??{KEY}??".encode()).decode(),
    ],
)
def test_a_key_is_scrubbed_in_every_form_a_server_echoes(form: str) -> None:
    text, found = scrub(f"before {form} after")
    assert found >= 1 and REDACTED in text
    assert KEY not in text and form not in text


def test_text_without_a_key_is_left_alone() -> None:
    text = "sk-proctor-TABLE-KEY-other is not the key; neither is c2stcHJvY3Rvcg=="
    assert scrub(text) == (text, 0)


def _completion(**fields: Any) -> Completion:
    base: dict[str, Any] = {
        "text": "Final answer: 5",
        "finish_reason": "stop",
        "usage": Usage(3, 4),
        "model": "m",
        "latency_s": 0.1,
    }
    return Completion(**{**base, **fields})


def test_the_boundary_repairs_scrubs_checks_and_says_so() -> None:
    c = accept(
        _completion(
            text="\ud800 Final answer: 5 " + KEY,
            model=f"m {KEY}",
            usage=Usage(prompt_tokens=-2, completion_tokens=4),
            tool_calls=(ToolCall("id\udc00", "calculator", '{"k": "' + KEY + '"}'),),
        ),
        max_bytes=1000,
    )
    assert c.text == f"\ufffd Final answer: 5 {REDACTED}"
    assert c.model == f"m {REDACTED}" and KEY not in c.tool_calls[0].arguments_json
    assert c.tool_calls[0].id == "id\ufffd"
    assert c.usage == Usage(None, 4)
    assert repair_text(" ".join(c.notes))[1] == 0
    assert any("lone surrogates" in n for n in c.notes)
    assert any("[redacted]" in n for n in c.notes)
    same = _completion()
    assert accept(same, max_bytes=1000) is same  # nothing to change: nothing changed


def test_a_reply_over_the_cap_is_a_bad_reply() -> None:
    with pytest.raises(BadReply, match="larger than the 100-byte cap"):
        accept(_completion(text="é" * 51), max_bytes=100)  # 102 bytes in UTF-8
    assert accept(_completion(text="é" * 50), max_bytes=100).text == "é" * 50


def test_a_failure_message_is_scrubbed_before_it_is_cut() -> None:
    message = "\ud800" + "x" * 394 + KEY  # the cut falls inside the key
    clean = accept_error(message)
    assert len(clean) == 400 and clean.endswith("[red…")
    assert KEY[:4] not in clean and clean.startswith("\ufffdx")
