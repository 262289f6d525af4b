"""One stored answer as a JSON object: a line of the `samples.jsonl` a run streams while it
asks (`proctor.runs.answer_log`) and the first fields of `proctor export --to jsonl`. Imports
only the types: a run's start must not load the statistics."""

from __future__ import annotations

from typing import Any

from proctor.types import Record, Sample


def answer_fields(record: Record, sample: Sample) -> dict[str, Any]:
    """One stored answer (or failed call) as plain JSON values; an unknown token count is
    null, never 0."""
    return {
        "run_id": record.run_id,
        "model": record.model,
        "sample_id": record.sample_id,
        "epoch": record.epoch,
        "status": record.status,
        "input": sample.input,
        "target": sample.target,
        "reply": record.text,
        "finish_reason": record.finish_reason,
        "error": record.error,
        "prompt_tokens": record.usage.prompt_tokens,
        "completion_tokens": record.usage.completion_tokens,
        "latency_s": record.latency_s,
        "attempts": record.attempts,
        "cached_from": record.cached_from,
    }
