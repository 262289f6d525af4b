"""Reading what proctor did not write: bytes from a server, a user's file, a model's reply.

A leaf (it imports nothing of proctor but its errors), shared by every room that takes text in,
so that each limit is stated once:

- `read_input_file`: a regular file of bounded size (a FIFO, a device such as /dev/zero or a
  folder is refused before a byte is read, so nothing hangs and nothing grows without end);
- `loads_bounded`: JSON with a bounded nesting depth and bounded integers (Python's own parser
  recurses, and a body nested 100,000 deep would end in a RecursionError; an integer of more
  than 4,300 digits raises a bare ValueError);
- `repair_text`: lone surrogates (which JSON's `\\ud800` escape can carry, and which no UTF-8
  file or SQLite column can hold) replaced by U+FFFD, and counted so the record can say so;
- `visible`: control characters (terminal escapes, carriage returns, bidirectional overrides)
  written as visible escapes, so that text from outside never drives a terminal.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects read from a file or a server (our own documents and
every API's replies need fewer than 10 levels)."""
MAX_INT_DIGITS = 4300
"""Longest integer read from a file: Python's own limit for converting text to int."""
MAX_INPUT_BYTES = 256 * 1024 * 1024
"""Largest input file read (a 100,000-sample test set is about 30 MB)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class Refused(ValueError):
    """Input proctor will not read: the message says why, in words, without the input."""


def read_input_file(path: Path, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; `Refused` for anything else.

    The file is opened without blocking and checked on the open descriptor: a FIFO would block
    an ordinary open forever, and the check cannot be raced by a file swapped in between."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise Refused(f"cannot read: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"not a regular file ({_kind(info.st_mode)}): give a .jsonl/.csv file")
        if info.st_size > max_bytes:
            raise Refused(f"file of {info.st_size:,} bytes is larger than {max_bytes:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # it grew while being read
            raise Refused(f"file is larger than {max_bytes:,} bytes")
        return b"".join(chunks)
    except OSError as e:
        raise Refused(f"cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a plain file"


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects in the JSON `text` nest deeper than `limit` (brackets inside
    strings do not count). Cheap when the text holds few brackets, as nearly all do."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for m in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _refuse_big_int(digits: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > digits:
            raise Refused(f"an integer of {len(text.lstrip('-')):,} digits (at most {digits:,})")
        return int(text)

    return parse


def _infinite_big_int(digits: int) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        if len(text.lstrip("-")) > digits:
            return float("-inf") if text.startswith("-") else float("inf")
        return int(text)

    return parse


def loads_bounded(
    text: str,
    *,
    max_depth: int = MAX_JSON_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    big_int_is_error: bool = True,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """`json.loads` that never recurses without bound nor converts a huge integer: `Refused`
    when the nesting is deeper than `max_depth` or (with `big_int_is_error`) an integer has more
    than `max_int_digits` digits; without it such an integer reads as ±infinity, which a reader
    of counts then refuses as not finite. Bad JSON raises json.JSONDecodeError as usual."""
    if json_depth_exceeds(text, max_depth):
        raise Refused(f"nested deeper than {max_depth} levels")
    parse_int = (_refuse_big_int if big_int_is_error else _infinite_big_int)(max_int_digits)
    try:
        return json.loads(text, parse_int=parse_int, object_pairs_hook=object_pairs_hook)
    except RecursionError:  # the bracket count above is exact; this is only a last guard
        raise Refused(f"nested deeper than {max_depth} levels") from None


def nesting_depth(value: object, limit: int = MAX_JSON_DEPTH) -> int:
    """How deep lists and dicts nest in a parsed value (TOML, YAML), walked without recursion;
    stops counting past `limit`. A container met twice (a YAML alias, which can expand without
    bound or refer to itself) counts as deeper than any limit."""
    deepest = 0
    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if id(item) in seen:
                return limit + 1
            seen.add(id(item))
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth) for child in children)
    return deepest


def loads_toml_bounded(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> dict[str, Any]:
    """TOML as `tomllib` reads it, but `Refused` when it nests deeper than `max_depth` (tomllib
    recurses: a document nested 100,000 deep would end in a RecursionError)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise Refused(f"nested deeper than {max_depth} levels") from None
    if nesting_depth(data, max_depth) > max_depth:
        raise Refused(f"nested deeper than {max_depth} levels")
    return data


def decode_utf8(data: bytes) -> tuple[str, int]:
    """`data` as text, and how many bytes were not UTF-8 (each run replaced by U+FFFD)."""
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        return text, text.count("\ufffd") - data.count("\ufffd".encode())


def repair_text(text: str) -> tuple[str, int]:
    """`text` with every lone surrogate replaced by U+FFFD, and how many there were."""
    if text.isascii():
        return text, 0
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.subn("\ufffd", text)
    return text, 0


def _escape_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]:
        if chr(code) not in "\n\t":
            table[code] = f"\\x{code:02x}"
    for code in [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]:
        table[code] = f"\\u{code:04x}"  # direction marks and overrides ("Trojan Source")
    for code in range(0xD800, 0xE000):
        table[code] = f"\\u{code:04x}"
    return table


_ESCAPES = _escape_table()
_NEEDS_ESCAPE = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in _ESCAPES if c < 0xD800) + "\ud800-\udfff]"
)


def visible(text: str) -> str:
    """`text` with every control character (but newline and tab), direction override and lone
    surrogate written as a visible escape: ESC [ 3 1 m reads as "\\x1b[31m" and does nothing."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return text.translate(_ESCAPES)
