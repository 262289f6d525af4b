"""Test-set files → Samples: JSONL (one object a line) and CSV (a header row, then one sample a
row); UTF-8 with or without a BOM, LF or CRLF; blank lines skipped; every problem a
DatasetError naming the file, the 1-based line and the field."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from proctor.datasets.schema import FIELDS, to_sample
from proctor.errors import DatasetError
from proctor.types import Sample

__all__ = ["load_samples"]

_REQUIRED = ("id", "input", "target")
_DIGITS = re.compile(r"[0-9]+")
_JSON_TYPES = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def load_samples(path: str | Path) -> list[Sample]:
    """The samples of a .jsonl or .csv file, in file order, ids unique."""
    p = Path(path)
    file = str(path)
    suffix = p.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise DatasetError(
            file, None, None, f"unsupported file type {suffix or '(none)'!r}: use .jsonl or .csv"
        )
    text = _read_text(p, file)
    records = _jsonl_records(text, file) if suffix == ".jsonl" else _csv_records(text, file)
    samples: list[Sample] = []
    first_line: dict[str, int] = {}
    for line, raw in records:
        sample = to_sample(raw, file, line)
        if sample.id in first_line:
            raise DatasetError(
                file,
                line,
                "id",
                f"duplicate id {sample.id!r} (first on line {first_line[sample.id]})",
            )
        first_line[sample.id] = line
        samples.append(sample)
    if not samples:
        raise DatasetError(file, None, None, "no samples")
    return samples


def _read_text(p: Path, file: str) -> str:
    try:
        data = p.read_bytes()
    except OSError as e:
        raise DatasetError(file, None, None, f"cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        message = f"not UTF-8 text (byte {data[e.start]:#04x})"
        raise DatasetError(file, line, None, message) from None


def _jsonl_records(text: str, file: str) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) for each non-blank line; lines split on LF only, a trailing CR dropped."""
    records: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            value = json.loads(line, object_pairs_hook=_no_duplicate_keys)
        except json.JSONDecodeError as e:
            raise DatasetError(
                file, number, None, f"bad JSON: {e.msg} at column {e.colno}"
            ) from None
        except _DuplicateKey as e:
            raise DatasetError(file, number, e.key, "key appears twice in one object") from None
        if not isinstance(value, dict):
            raise DatasetError(
                file, number, None, f"expected a JSON object, got {_JSON_TYPES.get(type(value))}"
            )
        records.append((number, value))
    return records


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


def _csv_records(text: str, file: str) -> list[tuple[int, dict[str, Any]]]:
    """(first line, record) for each non-blank row; the header names the fields, and columns
    that are not fields go into metadata (empty cells left out)."""
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
    header_line, header = rows[0]
    header = [h.strip() for h in header]
    _check_header(header, file, header_line)
    records = []
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise DatasetError(
                file, line, None, f"row has {len(row)} cells but the header has {len(header)}"
            )
        records.append((line, _csv_record(dict(zip(header, row, strict=True)), file, line)))
    return records


def _check_header(header: list[str], file: str, line: int) -> None:
    for name in _REQUIRED:
        if name not in header:
            raise DatasetError(file, line, name, "missing column")
    seen: set[str] = set()
    for name in header:
        if not name:
            raise DatasetError(file, line, None, "a header cell is empty")
        if name in seen:
            raise DatasetError(file, line, name, "column appears twice")
        seen.add(name)


def _csv_record(cells: dict[str, str], file: str, line: int) -> dict[str, Any]:
    record: dict[str, Any] = {}
    extra: dict[str, str] = {}
    for name, cell in cells.items():
        if name not in FIELDS:
            if cell != "":
                extra[name] = cell
        elif name == "decimals":
            if cell.strip():
                if not _DIGITS.fullmatch(cell.strip()):
                    raise DatasetError(file, line, "decimals", f"must be an integer, got {cell!r}")
                record["decimals"] = int(cell)
        elif name == "metadata":
            if cell.strip():
                record["metadata"] = _metadata_cell(cell, file, line)
        elif name in _REQUIRED or cell != "":
            record[name] = cell
    if extra:
        metadata = record.setdefault("metadata", {})
        for key, value in extra.items():
            if key in metadata:
                raise DatasetError(file, line, key, "both a column and a metadata key")
            metadata[key] = value
    return record


def _metadata_cell(cell: str, file: str, line: int) -> dict[str, Any]:
    try:
        value = json.loads(cell)
    except json.JSONDecodeError as e:
        raise DatasetError(file, line, "metadata", f"bad JSON: {e.msg}") from None
    if not isinstance(value, dict):
        raise DatasetError(file, line, "metadata", "must be a JSON object")
    return value
