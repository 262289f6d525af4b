"""The row helpers every table module shares (`store/tables.py`): a dataclass read from a row by
its fields' plain types or a named reader, and written to columns by attribute or a named
writer; a field nobody says how to read is refused when the reader is made, not at a read."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pytest

from proctor.store.tables import row_reader, row_writer
from proctor.types import Usage


@dataclass(frozen=True)
class _Item:
    name: str
    count: int
    share: float
    ok: bool
    usage: Usage


def _row(**values: object) -> sqlite3.Row:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    names = ", ".join(f"? AS {k}" for k in values)
    row: sqlite3.Row = db.execute(f"SELECT {names}", tuple(values.values())).fetchone()
    return row


def test_a_field_of_no_plain_type_needs_its_own_reader() -> None:
    with pytest.raises(TypeError, match=r"_Item\.usage"):
        row_reader(_Item)


def test_plain_fields_are_read_by_their_type_and_the_others_by_their_reader() -> None:
    read = row_reader(_Item, usage=lambda r: Usage(r["p"], r["c"]))
    item = read(_row(name=7, count="3", share=1, ok=0, p=2, c=5))
    assert item == _Item("7", 3, 1.0, False, Usage(2, 5))
    assert isinstance(item.share, float) and isinstance(item.name, str)


def test_columns_come_from_attributes_or_their_writer_in_column_order() -> None:
    write = row_writer(("ok", "name", "tokens"), tokens=lambda i: i.usage.total_tokens)
    assert write(_Item("x", 1, 0.5, True, Usage(2, 5))) == (True, "x", 7)
