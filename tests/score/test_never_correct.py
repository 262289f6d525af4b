"""Replies that must never be graded correct (cases/never_correct.json), through each task's own
grader: a false "correct" is the worst bug a grader can have."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.datasets.schema import infer_answer_type
from proctor.tasks.registry import get_task
from proctor.types import Record, Sample, Usage

CASES = Path(__file__).parent / "cases" / "grading" / "never_correct.json"
ANSWER_TYPE = {"gsm8k": "integer", "math500": "text"}  # as the shipped samples have them


def test_no_reply_in_the_table_is_graded_correct() -> None:
    rows = json.loads(CASES.read_text(encoding="utf-8"))["rows"]
    assert len({row["id"] for row in rows}) == len(rows), "duplicate row ids"
    assert len(rows) >= 60
    assert {row["task"] for row in rows} == {"arithmetic", "gsm8k", "math500"}
    failures = []
    for row in rows:
        task = get_task(row["task"])
        answer_type = row.get("answer_type") or ANSWER_TYPE.get(row["task"])
        if answer_type is None:
            answer_type = infer_answer_type(row["target"])[0]
        sample = Sample(
            id=row["id"], input=row.get("input", "q"), target=row["target"], answer_type=answer_type
        )
        record = Record(
            "r", "m", row["id"], "ok", row["text"], row.get("finish_reason", "stop"), Usage(),
            0.0, 1, row.get("variant", task.default_variant), "en",
        )  # fmt: skip
        score = task.grade(record, sample)
        unknown = [part for part in score.rule.split("+") if part not in task.rules]
        if unknown:
            failures.append(f"{row['id']}: rule parts {unknown} have no sentence in its rules")
        if score.outcome == "correct" or score.outcome != row.get("expect", score.outcome):
            failures.append(
                f"{row['id']}: {score.outcome} ({score.rule}) — {row['why']}. {score.explanation}"
            )
    assert not failures, f"{len(failures)} of {len(rows)} rows:\n" + "\n".join(failures)


HOSTILE = [
    "Final answer: " + "1" * 5000,  # more digits than Python converts
    "The answer is 0." + "3" * 5000,
    "\\boxed{1e999999999}",  # an exponent that would take forever to make exact
    "\\boxed{2}x" * 5000,  # many boxes: grouping them must stay linear
    "the answer is 2. " * 5000,  # many markers
    "the answer (as a fraction) is 2. " * 5000,  # many markers that name a form: linear too
    "\\boxed{" * 3000,  # nothing closes
    "$" + "\n" * 5000 + "2",
    "\\(" + "2\n" * 5000,
    "\\boxed{NaN}",
    "\\boxed{\\infty}",
]


def test_hostile_replies_are_graded_never_crash_never_correct() -> None:
    sample = Sample(id="h", input="q", target="7", answer_type="integer")
    for name in ("arithmetic", "gsm8k", "math500", "aime"):
        task = get_task(name)
        for text in HOSTILE:
            record = Record(
                "r", "m", "h", "ok", text, "stop", Usage(), 0.0, 1, task.default_variant, "en"
            )
            score = task.grade(record, sample)
            assert score.explanation, (name, text[:40])
            assert score.outcome != "correct", (name, text[:40], score)
