"""A proctor run as JSON Lines: one object per stored answer, with its grade, for any tool that
reads JSONL (pandas, jq, DuckDB): the fields of the `samples.jsonl` a run streams while it
asks (`answer_line`), and the grade."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import TextIO

from proctor.foreign.answer_line import answer_fields
from proctor.foreign.exported import ExportFile, Prompts, chat_messages
from proctor.stats.run_statistics import RunStatistics
from proctor.types import GradedItem

HERE = PurePosixPath(".")
"""The path of a one-file export: the file the user named."""


def graded_line(item: GradedItem, stats: RunStatistics, prompts: Prompts) -> str:
    line = answer_fields(item.record, item.sample)
    line["task"] = stats.info.task
    line["messages"] = chat_messages(item, prompts)
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
