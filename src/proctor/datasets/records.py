"""Reading a user's JSONL or CSV file into numbered records, with errors that name the file
and line: shared by test-set files and team suites, which differ only in their columns.

A file is read only when it is a regular file of bounded size (`untrusted.read_input_file`);
JSON (a line, or a cell) only within bounded depth and integer size, and never with a lone
surrogate in a string (no UTF-8 file or store can hold one); each refusal names file, line and
field."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proctor._util.untrusted import Refused, loads_bounded, read_input_file, repair_text
from proctor.errors import DatasetError

_JSON_TYPES = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def read_text(path: Path, file: str) -> str:
    """The file as text: UTF-8, a BOM allowed; a clear error for unreadable or non-UTF-8 files,
    and for anything but a regular file of bounded size (a FIFO, /dev/zero, a folder)."""
    try:
        data = read_input_file(path)
    except Refused as e:
        raise DatasetError(file, None, None, str(e)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        message = f"not UTF-8 text (byte {data[e.start]:#04x})"
        raise DatasetError(file, line, None, message) from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def jsonl_records(text: str, file: str) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) for each non-blank line; lines split on LF only, a trailing CR dropped; a
    key written twice in one object is an error, not a silent overwrite."""
    records: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        value = checked_json(line, file, number, None)
        if not isinstance(value, dict):
            raise DatasetError(
                file, number, None, f"expected a JSON object, got {_JSON_TYPES.get(type(value))}"
            )
        records.append((number, value))
    return records


def checked_json(text: str, file: str, line: int, field: str | None) -> Any:
    """`text` (a JSONL line or a cell) as JSON, or a DatasetError at `file`:`line` naming the
    field: bad JSON, a key written twice in one object, nesting too deep, an integer too long,
    or a lone surrogate (the escape \\ud800) in a string."""
    try:
        value = loads_bounded(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise DatasetError(file, line, field, f"bad JSON: {e.msg} at column {e.colno}") from None
    except _DuplicateKey as e:
        raise DatasetError(file, line, e.key, "key appears twice in one object") from None
    except Refused as e:
        raise DatasetError(file, line, field, f"refused: {e}") from None
    bad = lone_surrogate(value)
    if bad is not None:
        where = bad if field is None else f"{field}.{bad}" if bad else field
        raise DatasetError(
            file,
            line,
            where or None,
            "invalid Unicode: a lone surrogate (an escape such as "
            "\\ud800 with no pair), which no UTF-8 text can hold",
        )
    return value


def lone_surrogate(value: object) -> str | None:
    """The path ("" for the value itself) of the first string or key with a lone surrogate in
    a parsed JSON value, or None. The value's depth is bounded already."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if repair_text(item)[1]:
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{path}.{key}" if path else str(key)
                if repair_text(str(key))[1]:
                    return path or "(a key)"
                stack.append((child, name))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None


def csv_rows(
    text: str, file: str, check_header: Callable[[list[str], str, int], None]
) -> list[tuple[int, dict[str, Any]]]:
    """(first line, header → cell text) for each non-blank row after the header, read by a strict
    CSV parser (quoted commas and newlines in cells are fine); `check_header(header, file,
    line)` vets the stripped header names; a row with the wrong number of cells is an error."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as e:
        raise DatasetError(file, start, None, f"bad CSV: {e}") from None
    if not rows:
        return []
    header_line, raw_header = rows[0]
    header = [h.strip() for h in raw_header]
    check_header(header, file, header_line)
    out: list[tuple[int, dict[str, Any]]] = []
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise DatasetError(
                file, line, None, f"row has {len(row)} cells but the header has {len(header)}"
            )
        out.append((line, dict(zip(header, row, strict=True))))
    return out


def check_names(
    names: list[str],
    file: str,
    line: int,
    empty: str,
    unknown: Callable[[str], str | None] = lambda name: None,
) -> None:
    """A header's (or a record's) column names: none empty (`empty` says so), none twice, and
    none that `unknown` has a complaint about."""
    seen: set[str] = set()
    for name in names:
        if not name:
            raise DatasetError(file, line, None, empty)
        if name in seen:
            raise DatasetError(file, line, name, "column appears twice")
        complaint = unknown(name)
        if complaint is not None:
            raise DatasetError(file, line, name, complaint)
        seen.add(name)
