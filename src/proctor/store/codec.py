"""Turning the shared value types into column values and JSON, and back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, TypeVar, get_args

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


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


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


def sample_to_json(sample: Sample) -> str:
    return dumps(
        {
            "id": sample.id,
            "input": sample.input,
            "target": sample.target,
            "category": sample.category,
            "difficulty": sample.difficulty,
            "answer_type": sample.answer_type,
            "decimals": sample.decimals,
            "metadata": dict(sample.metadata),
        }
    )


def sample_from_json(text: str) -> Sample:
    d: dict[str, Any] = json.loads(text)
    decimals = d.get("decimals")
    return Sample(
        id=str(d["id"]),
        input=str(d["input"]),
        target=str(d["target"]),
        category=str(d.get("category", "")),
        difficulty=str(d.get("difficulty", "")),
        answer_type=literal(d.get("answer_type", "integer"), ANSWER_TYPES, "answer type"),
        decimals=None if decimals is None else int(decimals),
        metadata={str(k): str(v) for k, v in dict(d.get("metadata") or {}).items()},
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
        return dumps(dict(config))
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
    "created_at",
)


def record_to_row(record: Record, created_at: str) -> tuple[object, ...]:
    """Column values in `RECORD_COLUMNS` order."""
    return (
        record.run_id,
        record.model,
        record.sample_id,
        record.epoch,
        record.status,
        record.text,
        record.finish_reason,
        record.usage.prompt_tokens,
        record.usage.completion_tokens,
        record.latency_s,
        record.attempts,
        record.prompt_variant,
        record.lang,
        record.reported_model,
        record.error,
        created_at,
    )


def record_from_row(row: sqlite3.Row) -> Record:
    return Record(
        run_id=str(row["run_id"]),
        model=str(row["model"]),
        sample_id=str(row["sample_id"]),
        epoch=int(row["epoch"]),
        status=literal(row["status"], RECORD_STATUSES, "record status"),
        text=str(row["text"]),
        finish_reason=literal(row["finish_reason"], FINISH_REASONS, "finish reason"),
        usage=Usage(int(row["prompt_tokens"]), int(row["completion_tokens"])),
        latency_s=float(row["latency_s"]),
        attempts=int(row["attempts"]),
        prompt_variant=str(row["prompt_variant"]),
        lang=str(row["lang"]),
        reported_model=str(row["reported_model"]),
        error=str(row["error"]),
    )


def score_from_row(row: sqlite3.Row) -> Score:
    extracted = row["extracted"]
    normalized = row["normalized"]
    return Score(
        outcome=literal(row["outcome"], OUTCOME_NAMES, "outcome"),
        rule=str(row["rule"]),
        explanation=str(row["explanation"]),
        extracted=None if extracted is None else str(extracted),
        normalized=None if normalized is None else str(normalized),
        format_ok=bool(row["format_ok"]),
    )
