"""A proctor run as JSON Lines: one object per stored answer, with its grade, for any tool that
reads JSONL (pandas, jq, DuckDB). `answer_fields` is also the line of the `samples.jsonl` a run
streams while it asks (an answer before it is graded)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any, TextIO

from proctor.foreign.exported import ExportFile, Prompts, messages_of
from proctor.stats.run_statistics import RunStatistics
from proctor.types import GradedItem, Record, Sample

HERE = PurePosixPath(".")
"""The path of a one-file export: the file the user named."""


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


def graded_line(item: GradedItem, stats: RunStatistics, prompts: Prompts) -> str:
    line = answer_fields(item.record, item.sample)
    line["task"] = stats.info.task
    line["messages"] = [{"role": m.role, "content": m.content} for m in messages_of(item, prompts)]
    score = item.score
    line.update(
        outcome=score.outcome,
        extracted=score.extracted,
        normalized=score.normalized,
        rule=score.rule,
        explanation=score.explanation,
        grader_version=stats.grader_version,
    )
    return json.dumps(line, ensure_ascii=False) + "\n"


def jsonl_files(stats: RunStatistics, prompts: Prompts) -> list[ExportFile]:
    def write(out: TextIO) -> None:
        for item in stats.items:
            out.write(graded_line(item, stats, prompts))

    return [ExportFile(HERE, write)]
