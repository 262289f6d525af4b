"""Another harness's run as proctor reads it: the questions, the raw model outputs, and that
harness's own verdicts (a second grader beside proctor's). Pure values; the readers are
`lm_eval.py` and `inspect_log.py`, the writing into a run store is `proctor.runs.imported`."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from proctor.datasets import benchmarks
from proctor.errors import DatasetError
from proctor.types import FinishReason, Sample, Usage

ForeignOutcome = Literal["correct", "wrong", "unscored"]

MAX_LOG_BYTES = 1 << 30
"""The largest log read (a run of 100,000 samples with their transcripts is well under it)."""


@dataclass(frozen=True)
class ForeignVerdict:
    """One verdict of the other harness: correct, wrong or unscored (a value that is neither,
    e.g. partial credit), its raw value, and what its extraction took from the reply."""

    outcome: ForeignOutcome
    value: str
    credit: float | None
    """The value as that harness averages it (1.0, 0.0, 0.5 for partial); None if it does not."""
    extracted: str = ""
    explanation: str = ""


@dataclass(frozen=True)
class ForeignAnswer:
    sample: Sample
    epoch: int
    text: str
    """The raw model output, as the harness logged it."""
    finish_reason: FinishReason = "unknown"
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    reported_model: str = ""
    error: str = ""
    """Non-empty when the harness logged an error instead of an output (a failed call)."""
    verdicts: Mapping[str, ForeignVerdict] = field(default_factory=dict)
    """Grader name (e.g. "lm-eval strict-match exact_match") → its verdict on this answer."""


@dataclass(frozen=True)
class ForeignRun:
    harness: str
    """"lm-eval" or "inspect"."""
    harness_version: str
    their_task: str
    model: str
    """The model as that harness named it."""
    source: str
    graders: tuple[str, ...]
    """Their graders, the one whose verdict stands for theirs first."""
    answers: tuple[ForeignAnswer, ...]
    reported: Mapping[str, float] = field(default_factory=dict)
    """Grader → the accuracy the harness itself reported (its results file), when known."""
    proctor_task: str = ""
    """The proctor task that grades these answers ("gsm8k"), when their task is one we know."""
    notes: tuple[str, ...] = ()
    """What the reader could not take over, in words (shown at import)."""


def numeric_verdict(value: object, extracted: str, explanation: str) -> ForeignVerdict | None:
    """A score that is a number (a boolean as 1 or 0): 1 correct, 0 wrong, any other number
    unscored (its value kept as the credit); None when `value` is no number."""
    if isinstance(value, bool):
        value = float(value)
    if not isinstance(value, int | float):
        return None
    v = float(value)
    outcome: ForeignOutcome = "correct" if v == 1.0 else "wrong" if v == 0.0 else "unscored"
    return ForeignVerdict(outcome, f"{v:g}", v, extracted, explanation)


def check_size(path: Path) -> None:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise DatasetError(str(path), None, None, f"cannot read: {e.strerror}") from None
    if not path.is_file():
        raise DatasetError(str(path), None, None, "not a regular file")
    if size > MAX_LOG_BYTES:
        raise DatasetError(str(path), None, None, f"{size:,} bytes: larger than a log can be")


def read_json(path: Path, text: str, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise DatasetError(str(path), line, None, f"not JSON: {e}") from None
    except RecursionError:
        raise DatasetError(str(path), line, None, "JSON nested too deeply") from None


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line; anything else is a DatasetError."""
    check_size(path)
    try:
        handle = path.open(encoding="utf-8-sig")
        with handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                value = read_json(path, line, number)
                if not isinstance(value, dict):
                    raise DatasetError(str(path), number, None, "expected a JSON object")
                yield number, value
    except UnicodeDecodeError as e:
        raise DatasetError(str(path), None, None, f"not UTF-8 text (byte {e.start})") from None


def text_of(value: object) -> str:
    """A logged string, or the text parts of a logged message content list."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return ""


def gsm8k_target(answer: str) -> str:
    """GSM8K's number after "####", thousands commas removed (as `benchmarks.gsm8k`)."""
    return answer.rsplit("####", 1)[-1].strip().replace(",", "")


_GSM8K_BY_QUESTION: dict[str, Sample] = {}


def gsm8k_sample(question: str, answer_or_target: str, fallback_id: str) -> Sample:
    """The shipped GSM8K sample with this question (its id, target and solution), so the import
    lines up with proctor's own gsm8k runs; else a sample made from what the log holds."""
    if not _GSM8K_BY_QUESTION:
        _GSM8K_BY_QUESTION.update({" ".join(s.input.split()): s for s in benchmarks.gsm8k()})
    known = _GSM8K_BY_QUESTION.get(" ".join(question.split()))
    if known is not None:
        return known
    return Sample(
        id=fallback_id,
        input=question,
        target=gsm8k_target(answer_or_target),
        answer_type="integer",
        metadata={"solution": answer_or_target} if "####" in answer_or_target else {},
    )


def proctor_task_for(their_task: str) -> str:
    """The proctor task that grades a task of theirs, or "" when none is known."""
    return "gsm8k" if "gsm8k" in their_task.lower() else ""
