"""A record's row: every field goes back to its own place, and a value the store never wrote is
refused by name."""

from __future__ import annotations

import pytest

from proctor.errors import StoreError
from proctor.store.codec import RECORD_COLUMNS, RECORD_READ_COLUMNS, record_from_row, record_to_row
from proctor.types import Record, Usage

EVERY_FIELD_ITS_OWN = Record(
    run_id="run-1",
    model="openai/gpt-4o",
    sample_id="q-7",
    status="ok",
    text="The answer is 42.",
    finish_reason="length",
    usage=Usage(prompt_tokens=11, completion_tokens=None),
    latency_s=1.25,
    attempts=3,
    prompt_variant="B",
    lang="zh",
    reported_model="gpt-4o-2024-08-06",
    error="timed out once",
    epoch=2,
    notes="cut at max_tokens",
    cached_from="run-0",
    batch_id="batch_abc",
)


def _row(record: Record) -> tuple[object, ...]:
    return record_to_row(record, "2026-12-02T08:00:00Z")[: len(RECORD_READ_COLUMNS)]


def test_an_unknown_status_is_refused_by_name() -> None:
    row = list(_row(EVERY_FIELD_ITS_OWN))
    row[RECORD_COLUMNS.index("status")] = "maybe"
    with pytest.raises(StoreError, match="maybe"):
        record_from_row(row)


def test_an_unknown_finish_reason_is_refused_by_name() -> None:
    row = list(_row(EVERY_FIELD_ITS_OWN))
    row[RECORD_COLUMNS.index("finish_reason")] = "sleepy"
    with pytest.raises(StoreError, match="sleepy"):
        record_from_row(row)


def test_every_field_comes_back_to_its_own_place() -> None:
    assert record_from_row(_row(EVERY_FIELD_ITS_OWN)) == EVERY_FIELD_ITS_OWN


def test_the_row_names_each_value_by_its_column() -> None:
    named = dict(zip(RECORD_COLUMNS, record_to_row(EVERY_FIELD_ITS_OWN, "at"), strict=True))
    assert named["epoch"] == 2
    assert named["error"] == "timed out once"
    assert named["notes"] == "cut at max_tokens"
    assert named["completion_tokens"] == -1  # unknown count, stored as UNKNOWN_COUNT
    assert named["created_at"] == "at"
