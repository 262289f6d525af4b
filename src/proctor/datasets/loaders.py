"""Test-set files → Samples: JSONL (one object a line) and CSV (a header row, then one sample a
row); UTF-8 with or without a BOM, LF or CRLF; blank lines skipped; every problem a
DatasetError naming the file, the 1-based line and the field."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from proctor.datasets.hub import FORM, hub_ref, is_hub_name
from proctor.datasets.records import (
    check_names,
    checked_json,
    csv_rows,
    jsonl_records,
    read_text,
)
from proctor.errors import DatasetError
from proctor.types import Sample

__all__ = ["load_samples"]

R = TypeVar("R")

_REQUIRED = ("id", "input", "target")
_DIGITS = re.compile(r"[0-9]+")


def load_samples(path: str | Path) -> list[Sample]:
    """The samples of a .jsonl or .csv file, in file order, ids unique."""
    from proctor.datasets.schema import to_sample  # its pydantic model: only when a file is read

    p = Path(path)
    file = str(path)
    if is_hub_name(path):
        hub_ref(path)  # a bad name is refused naming the form
        raise DatasetError(
            f"hf://{file[4:].lstrip('/')}", None, None, "a dataset name, not a file: name it to "
            "`proctor run --dataset`"
        )  # fmt: skip
    suffix = p.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise DatasetError(
            file, None, None, f"unsupported file type {suffix or '(none)'!r}: use .jsonl or .csv,"
            f" or a dataset by name ({FORM})"
        )  # fmt: skip
    text = read_text(p, file)
    records = jsonl_records(text, file) if suffix == ".jsonl" else _csv_records(text, file)
    return unique_samples(records, lambda raw, line: to_sample(raw, file, line), file, "no samples")


def unique_samples(
    rows: Iterable[tuple[int, R]], to_sample: Callable[[R, int], Sample], file: str, none: str
) -> list[Sample]:
    """`to_sample(row, line)` of each (line, row), in order, ids unique (`SeenIds`); a
    DatasetError saying `none` when there are none."""
    samples: list[Sample] = []
    seen = SeenIds(file)
    for line, row in rows:
        sample = to_sample(row, line)
        seen.add(sample.id, line)
        samples.append(sample)
    if not samples:
        raise DatasetError(file, None, None, none)
    return samples


class SeenIds:
    """Ids met so far in one file, compared in Unicode NFC: "é" written as one code point and
    as e + a combining accent look the same and are the same id (two would be one sample
    twice in a report, told apart by nothing a reader sees)."""

    def __init__(self, file: str) -> None:
        self._file = file
        self._first: dict[str, tuple[str, int]] = {}

    def add(self, sample_id: str, line: int) -> None:
        key = unicodedata.normalize("NFC", sample_id)
        if key in self._first:
            first, at = self._first[key]
            also = "" if first == sample_id else "; the two differ only in Unicode normalisation"
            raise DatasetError(
                self._file, line, "id", f"duplicate id {sample_id!r} (first on line {at}{also})"
            )
        self._first[key] = (sample_id, line)


def _csv_records(text: str, file: str) -> list[tuple[int, dict[str, Any]]]:
    """(first line, record) for each non-blank row; the header names the fields, and columns
    that are not fields go into metadata (empty cells left out)."""
    return [(line, _csv_record(cells, file, line)) for line, cells in
            csv_rows(text, file, _check_header)]  # fmt: skip


def _check_header(header: list[str], file: str, line: int) -> None:
    for name in _REQUIRED:
        if name not in header:
            raise DatasetError(file, line, name, "missing column")
    check_names(header, file, line, "a header cell is empty")


def _csv_record(cells: dict[str, str], file: str, line: int) -> dict[str, Any]:
    from proctor.datasets.schema import FIELDS

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
    value = checked_json(cell, file, line, "metadata")
    if not isinstance(value, dict):
        raise DatasetError(file, line, "metadata", "must be a JSON object")
    return value
