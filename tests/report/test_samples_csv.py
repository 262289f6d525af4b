"""samples.csv is written as lines we build ourselves (its repeated parts once, not per model):
it must be byte for byte what `csv.writer` writes of the same inert cells, for every hostile cell
(cases/csv_hostile_cells.json) in every free-text column."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from proctor.report.samples_csv import COLUMNS, csv_field, inert, samples_csv
from proctor.types import GradedItem

from .conftest import RULES, _item

CELLS: list[str] = json.loads(
    (Path(__file__).parent / "cases" / "csv_hostile_cells.json").read_text(encoding="utf-8")
)["cells"]

PLACES = {  # column → how an item is given that cell
    "run_id": lambda i, c: replace(i, record=replace(i.record, run_id=c)),
    "model": lambda i, c: replace(i, record=replace(i.record, model=c)),
    "sample_id": lambda i, c: replace(i, sample=replace(i.sample, id=c)),
    "category": lambda i, c: replace(i, sample=replace(i.sample, category=c)),
    "input": lambda i, c: replace(i, sample=replace(i.sample, input=c)),
    "target": lambda i, c: replace(i, sample=replace(i.sample, target=c)),
    "raw_response": lambda i, c: replace(i, record=replace(i.record, text=c)),
    "extracted": lambda i, c: replace(i, score=replace(i.score, extracted=c)),
    "rule": lambda i, c: replace(i, score=replace(i.score, rule=c)),
    "explanation": lambda i, c: replace(i, score=replace(i.score, explanation=c)),
    "error": lambda i, c: replace(i, record=replace(i.record, error=c)),
    "notes": lambda i, c: replace(i, record=replace(i.record, notes=c)),
    "cached_from": lambda i, c: replace(i, record=replace(i.record, cached_from=c)),
    "batch_id": lambda i, c: replace(i, record=replace(i.record, batch_id=c)),
}


@pytest.mark.parametrize("column", sorted(PLACES))
def test_every_hostile_cell_is_written_as_csv_writer_writes_it(column: str) -> None:
    base = _item("openai/gpt-4o", "int_0", "wrong", extracted="35")
    items = [PLACES[column](base, cell) for cell in CELLS]
    text = samples_csv(items, RULES)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 1 + len(CELLS)
    at = COLUMNS.index(column)
    assert [row[at] for row in rows[1:]] == [inert(cell) for cell in CELLS]
    again = io.StringIO(newline="")
    csv.writer(again).writerows(rows)
    assert text == again.getvalue()


@pytest.mark.parametrize("cell", CELLS)
def test_csv_field_is_csv_writers_field(cell: str) -> None:
    one = io.StringIO(newline="")
    csv.writer(one).writerow([cell, "x"])
    assert one.getvalue() == csv_field(cell) + ",x\r\n"


def test_samples_share_their_cells_yet_keep_their_own(tmp_path: Path) -> None:
    # Parts are written once per sample and per grade: two samples, two grades, two models,
    # each row still carries its own.
    a = _item("m1", "s1", "correct", input_="1 + 1", target="2", extracted="2")
    b = _item("m1", "s2", "wrong", input_="2, 2", target="4", extracted="5")
    items: list[GradedItem] = [a, b, replace(a, record=replace(a.record, model="m2")),
                               replace(b, record=replace(b.record, model="m2"))]  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(samples_csv(items, RULES), newline="")))
    got = [(r["model"], r["sample_id"], r["input"], r["extracted"], r["outcome"]) for r in rows]
    assert got == [
        ("m1", "s1", "1 + 1", "2", "correct"),
        ("m1", "s2", "2, 2", "5", "wrong"),
        ("m2", "s1", "1 + 1", "2", "correct"),
        ("m2", "s2", "2, 2", "5", "wrong"),
    ]
