"""Turning the shared value types into column values and JSON, and back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, get_args

from proctor._util.untrusted import repair_text
from proctor.datasets.jsonl import sample_dict
from proctor.errors import StoreError
from proctor.types import (
    AnswerType,
    FinishReason,
    GenerationParams,
    Outcome,
    Record,
    RecordStatus,
    Sample,
    Score,
    Usage,
)

L = TypeVar("L", bound=str)

# One encoder for every value stored: `json.dumps` with options builds a new one per call
# (a record's values are dumped once each, so a run paid that per answer).
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def dumps(value: object) -> str:
    return _ENCODER.encode(value)


def storable_dumps(value: object) -> str:
    return storable(dumps(value))


def literal(value: object, allowed: tuple[L, ...], what: str) -> L:
    """`value` as one of `allowed`, or a StoreError naming the bad value."""
    for option in allowed:
        if value == option:
            return option
    raise StoreError(f"stored {what} {value!r} is not one of {', '.join(allowed)}")


FINISH_REASONS: tuple[FinishReason, ...] = get_args(FinishReason)
ANSWER_TYPES: tuple[AnswerType, ...] = get_args(AnswerType)
OUTCOME_NAMES: tuple[Outcome, ...] = get_args(Outcome)
RECORD_STATUSES: tuple[RecordStatus, ...] = get_args(RecordStatus)

# `literal` by one dict lookup, for the columns read once per record; a value not found goes
# through `literal`, which raises its usual error.
_FINISH_REASON_OF: dict[object, FinishReason] = {v: v for v in FINISH_REASONS}
_ANSWER_TYPE_OF: dict[object, AnswerType] = {v: v for v in ANSWER_TYPES}
_OUTCOME_OF: dict[object, Outcome] = {v: v for v in OUTCOME_NAMES}
_RECORD_STATUS_OF: dict[object, RecordStatus] = {v: v for v in RECORD_STATUSES}


def _known(value: object, known: dict[object, L], allowed: tuple[L, ...], what: str) -> L:
    try:
        return known[value]
    except (KeyError, TypeError):  # TypeError: an unhashable value read from JSON
        return literal(value, allowed, what)


def outcome_name(value: object) -> Outcome:
    """`value` as an `Outcome`, or a StoreError naming it."""
    return _known(value, _OUTCOME_OF, OUTCOME_NAMES, "outcome")


def sample_to_json(sample: Sample) -> str:
    """The sample's record (`sample_dict`), every key kept: decimals and metadata stored even
    when None or empty."""
    return storable_dumps(
        {**sample_dict(sample), "decimals": sample.decimals, "metadata": dict(sample.metadata)}
    )


_DECODER = json.JSONDecoder()


def _loads(text: str) -> Any:
    """`json.loads`, minus its wrappers' cost on the JSON we wrote (read once per record); any
    other text goes through `json.loads` itself, which reads or refuses it as always."""
    try:
        value, end = _DECODER.raw_decode(text)
    except (ValueError, TypeError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def sample_from_json(text: str) -> Sample:
    d: dict[str, Any] = _loads(text)
    decimals = d.get("decimals")
    return Sample(
        str(d["id"]),
        str(d["input"]),
        str(d["target"]),
        str(d.get("category", "")),
        str(d.get("difficulty", "")),
        _known(d.get("answer_type", "integer"), _ANSWER_TYPE_OF, ANSWER_TYPES, "answer type"),
        None if decimals is None else int(decimals),
        {str(k): str(v) for k, v in dict(d.get("metadata") or {}).items()},
    )


def params_to_json(params: GenerationParams) -> str:
    return dumps(
        {
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "timeout_s": params.timeout_s,
            "seed": params.seed,
        }
    )


def params_from_json(text: str) -> GenerationParams:
    d: dict[str, Any] = json.loads(text)
    seed = d.get("seed")
    return GenerationParams(
        temperature=float(d["temperature"]),
        max_tokens=int(d["max_tokens"]),
        timeout_s=float(d["timeout_s"]),
        seed=None if seed is None else int(seed),
    )


def config_to_json(config: Mapping[str, object]) -> str:
    try:
        return storable_dumps(dict(config))
    except (TypeError, ValueError) as e:
        raise StoreError(f"run config cannot be stored as JSON: {e}") from e


RECORD_COLUMNS = (
    "run_id",
    "model",
    "sample_id",
    "epoch",
    "status",
    "text",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "attempts",
    "prompt_variant",
    "lang",
    "reported_model",
    "error",
    "notes",
    "cached_from",
    "batch_id",
    "created_at",
)

UNKNOWN_COUNT = -1
"""How an unknown token count is stored (the columns are NOT NULL; no real count is < 0)."""


def count_to_column(count: int | None) -> int:
    return UNKNOWN_COUNT if count is None else count


def count_from_column(value: int) -> int | None:
    return None if value < 0 else value


USAGE_COLUMNS: dict[str, Callable[[Any], object]] = {
    "prompt_tokens": lambda value: count_to_column(value.usage.prompt_tokens),
    "completion_tokens": lambda value: count_to_column(value.usage.completion_tokens),
}
"""How a value's `usage` fills its row's two token columns (`tables.row_writer`)."""


def usage_of_row(row: sqlite3.Row) -> Usage:
    """A row's `usage` from its two token columns (`tables.row_reader`)."""
    return Usage(
        count_from_column(int(row["prompt_tokens"])),
        count_from_column(int(row["completion_tokens"])),
    )


def storable(text: str) -> str:
    """`text` as SQLite's UTF-8 can hold it: a lone surrogate that slipped past the reply
    boundary becomes U+FFFD here rather than a UnicodeEncodeError that ends the run."""
    return repair_text(text)[0]


def record_to_row(record: Record, created_at: str) -> tuple[object, ...]:
    """Column values in `RECORD_COLUMNS` order."""
    return (
        record.run_id,
        record.model,
        record.sample_id,
        record.epoch,
        record.status,
        storable(record.text),
        record.finish_reason,
        count_to_column(record.usage.prompt_tokens),
        count_to_column(record.usage.completion_tokens),
        record.latency_s,
        record.attempts,
        record.prompt_variant,
        record.lang,
        storable(record.reported_model),
        storable(record.error),
        storable(record.notes),
        record.cached_from,
        record.batch_id,
        created_at,
    )


RECORD_READ_COLUMNS = RECORD_COLUMNS[:-1]
"""The columns `record_from_row` reads, in its order (`created_at` is not part of a Record)."""


def record_from_row(row: Sequence[Any]) -> Record:
    """A Record from a row of `RECORD_READ_COLUMNS` (a plain tuple or an `sqlite3.Row`).

    The columns are taken as SQLite returns them: the table's NOT NULL types hold what
    `record_to_row` wrote. Status and finish reason are still checked (a StoreError names a
    value that is not one of them)."""
    (
        run_id,
        model,
        sample_id,
        epoch,
        status,
        text,
        finish_reason,
        prompt_tokens,
        completion_tokens,
        latency_s,
        attempts,
        prompt_variant,
        lang,
        reported_model,
        error,
        notes,
        cached_from,
        batch_id,
    ) = row[:18]
    return Record(
        run_id,
        model,
        sample_id,
        _known(status, _RECORD_STATUS_OF, RECORD_STATUSES, "record status"),
        text,
        _known(finish_reason, _FINISH_REASON_OF, FINISH_REASONS, "finish reason"),
        Usage(count_from_column(prompt_tokens), count_from_column(completion_tokens)),
        latency_s,
        attempts,
        prompt_variant,
        lang,
        reported_model,
        error,
        epoch,
        notes,
        cached_from,
        batch_id,
    )


SCORE_READ_COLUMNS = ("outcome", "rule", "explanation", "extracted", "normalized", "format_ok")
"""The columns `score_from_values` reads, in its order."""


def score_from_values(values: Sequence[Any]) -> Score:
    """A Score from the values of `SCORE_READ_COLUMNS`, in that order (a plain tuple)."""
    outcome, rule, explanation, extracted, normalized, format_ok = values
    return Score(
        outcome=outcome_name(outcome),
        rule=str(rule),
        explanation=str(explanation),
        extracted=None if extracted is None else str(extracted),
        normalized=None if normalized is None else str(normalized),
        format_ok=bool(format_ok),
    )


def score_from_row(row: sqlite3.Row) -> Score:
    return score_from_values([row[c] for c in SCORE_READ_COLUMNS])
