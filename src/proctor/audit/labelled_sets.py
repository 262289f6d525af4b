"""Audit sets: replies a person has graded, to measure a grader against (`proctor audit`).

An audit set is JSONL, one labelled reply a line (shipped: builtin/audit/<task>.jsonl):

    id             unique in the file
    task           the proctor task whose grader the reply audits
    sample         the sample it answered, as a test-set line (id, input, target, answer_type, …)
    variant        the prompt variant it answered (default: the task's own)
    finish_reason  stop or length (default stop)
    reply          the model's raw reply
    label          correct | not_correct: what a careful person grading by the task's stated
                   rules says
    reason         why, in one sentence
    form           what the reply is an example of ("mixed number", "unit"): disagreements are
                   counted by it
    language       the language the reply is written in (default "en"), a short code ("de",
                   "zh"): the audit counts agreement per language and names the languages audited

A malformed file stops with an error naming the file, line and field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from proctor.datasets.records import jsonl_records, read_text
from proctor.datasets.schema import to_sample
from proctor.errors import DatasetError
from proctor.types import FinishReason, Sample

Label = Literal["correct", "not_correct"]
LABELS: tuple[Label, ...] = ("correct", "not_correct")
_FINISH: tuple[FinishReason, ...] = ("stop", "length")
_REQUIRED = ("id", "task", "sample", "reply", "label", "reason", "form")


@dataclass(frozen=True)
class AuditItem:
    """One labelled reply."""

    id: str
    task: str
    sample: Sample
    variant: str | None
    finish_reason: FinishReason
    reply: str
    label: Label
    reason: str
    form: str
    language: str = "en"


def _text(raw: Mapping[str, Any], key: str, file: str, line: int) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or (key != "reply" and not value.strip()):
        raise DatasetError(file, line, key, "must be a non-empty string")
    return value


def _item(raw: dict[str, Any], file: str, line: int) -> AuditItem:
    for key in _REQUIRED:
        if key not in raw:
            raise DatasetError(file, line, key, "is required")
    if not isinstance(raw["sample"], dict):
        raise DatasetError(file, line, "sample", "must be an object (a test-set line)")
    label = _text(raw, "label", file, line)
    if label not in LABELS:
        raise DatasetError(file, line, "label", f"{label!r}: use correct or not_correct")
    finish = raw.get("finish_reason", "stop")
    if finish not in _FINISH:
        raise DatasetError(file, line, "finish_reason", f"{finish!r}: use stop or length")
    variant = raw.get("variant")
    if variant is not None and not isinstance(variant, str):
        raise DatasetError(file, line, "variant", "must be a string")
    return AuditItem(
        id=_text(raw, "id", file, line),
        task=_text(raw, "task", file, line),
        sample=to_sample(raw["sample"], file, line),
        variant=variant,
        finish_reason=finish,
        reply=_text(raw, "reply", file, line),
        label="correct" if label == "correct" else "not_correct",
        reason=_text(raw, "reason", file, line),
        form=_text(raw, "form", file, line),
        language=_text(raw, "language", file, line) if "language" in raw else "en",
    )


def load_audit_file(path: Path) -> list[AuditItem]:
    """Every labelled reply of an audit file, in order; ids must be unique."""
    file = str(path)
    items: list[AuditItem] = []
    seen: set[str] = set()
    for line, raw in jsonl_records(read_text(path, file), file):
        item = _item(raw, file, line)
        if item.id in seen:
            raise DatasetError(file, line, "id", f"duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def builtin_audit_files() -> dict[str, Path]:
    """The shipped audit sets by task name: builtin/audit/<task>.jsonl."""
    folder = resources.files("proctor.datasets") / "builtin" / "audit"
    return {
        Path(entry.name).stem: Path(str(entry))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".jsonl")
    }


RECORD_FILE = "audited.json"
"""builtin/audit/audited.json: the last audit of each shipped set, for reports to quote."""


@dataclass(frozen=True)
class RecordedAudit:
    """What `proctor audit --record` wrote for one task."""

    task: str
    grader_version: str
    labelled: int
    false_correct: int
    false_wrong: int
    unscored: int


def recorded_audits(path: Path | None = None) -> dict[str, RecordedAudit]:
    """The recorded audit of each task (the shipped record unless `path` names another)."""
    if path is None:
        source = resources.files("proctor.datasets") / "builtin" / "audit" / RECORD_FILE
        if not source.is_file():
            return {}
        text = source.read_text(encoding="utf-8")
    else:
        text = read_text(path, str(path))
    document = json.loads(text)
    return {
        task: RecordedAudit(
            task,
            str(entry["grader_version"]),
            int(entry["labelled"]),
            int(entry["false_correct"]),
            int(entry["false_wrong"]),
            int(entry["unscored"]),
        )
        for task, entry in document.get("tasks", {}).items()
    }
