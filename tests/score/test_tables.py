"""Walk each case table in cases/: one test per table, every failing row named by its id."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from proctor.extract import extract_answer, find_violation, parse_number
from proctor.runs.grade import grade as grade_stored
from proctor.score import RULES, grade
from proctor.tasks.arithmetic import TASK as ARITHMETIC
from proctor.types import Record, Sample, Usage

CASES = Path(__file__).parent / "cases" / "grading"


def _load(name: str) -> Any:
    table = json.loads((CASES / name).read_text(encoding="utf-8"))
    rows = table["rows"] if isinstance(table, dict) else table
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), f"{name}: duplicate row ids"
    return table


def _report(failures: list[str], rows: int) -> None:
    assert not failures, f"{len(failures)} of {rows} rows failed:\n" + "\n".join(failures)


def _mismatches(row_id: str, expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    return [
        f"{row_id}: {key} expected {want!r}, got {actual[key]!r}"
        for key, want in expected.items()
        if actual[key] != want
    ]


def test_normalize_table() -> None:
    rows = _load("normalize_cases.json")
    failures: list[str] = []
    for row in rows:
        token = parse_number(row["text"])
        if row["value"] is None:
            if token is not None:
                failures.append(f"{row['id']}: expected no number, got {token}")
            continue
        if token is None:
            failures.append(f"{row['id']}: expected {row['value']}, got no number")
            continue
        actual = {
            "value": token.value,
            "kind": token.kind,
            "decimals": token.decimals,
            "canonical": token.canonical,
            "percent": token.percent,
            "reduced": token.reduced,
        }
        expected = {
            "value": Fraction(row["value"]),
            "kind": row["kind"],
            "decimals": row["decimals"],
            "canonical": row["canonical"],
            "percent": row.get("percent", False),
            "reduced": row.get("reduced", True),
        }
        failures += _mismatches(row["id"], expected, actual)
    _report(failures, len(rows))


def test_extraction_table() -> None:
    rows = _load("extraction_cases.json")
    failures: list[str] = []
    for row in rows:
        extraction = extract_answer(
            row["text"],
            variant=row["variant"],
            question=row.get("question", ""),
            operands=tuple(row.get("operands", ())),
            answer_type=row.get("answer_type", "integer"),
        )
        expected = dict(row["expect"])
        note = expected.pop("note_contains", None)
        actual = {
            "value": extraction.value,
            "rule": extraction.rule,
            "format_ok": extraction.format_ok,
        }
        failures += _mismatches(row["id"], expected, actual)
        if note is not None and note not in extraction.note:
            failures.append(f"{row['id']}: note {extraction.note!r} lacks {note!r}")
    _report(failures, len(rows))


def test_violation_table() -> None:
    rows = _load("violation_cases.json")
    failures: list[str] = []
    for row in rows:
        reason = find_violation(row["text"])
        if (reason is not None) != row["violation"]:
            failures.append(f"{row['id']}: expected violation={row['violation']}, got {reason!r}")
        if reason is not None and "\n" in reason:
            failures.append(f"{row['id']}: reason is not one line: {reason!r}")
    _report(failures, len(rows))


def _sample(row_id: str, default: dict[str, Any], override: dict[str, Any]) -> Sample:
    fields = {**default, **override}
    operands = fields.pop("operands")
    return Sample(
        id=row_id,
        metadata={} if operands is None else {"operands": operands},
        **fields,
    )


def _failed_record(row: dict[str, Any]) -> Record:
    return Record(
        run_id="r", model="m", sample_id=row["id"], status="call_failed", text=row["text"],
        finish_reason=row["finish_reason"], usage=Usage(None, None), latency_s=0.0, attempts=3,
        prompt_variant=row["variant"], lang="en", error=row.get("error", ""),
    )  # fmt: skip


def test_grading_table() -> None:
    table = _load("grading_cases.json")
    rows = table["rows"]
    failures: list[str] = []
    for row in rows:
        sample = _sample(row["id"], table["default_sample"], row.get("sample", {}))
        if row.get("call_failed", False):
            # A failed call never reaches the scorer: the grading room grades it.
            score = grade_stored(ARITHMETIC, _failed_record(row), sample)
        else:
            score = grade(row["text"], row["finish_reason"], sample, variant=row["variant"])
        expected = dict(row["expect"])
        contains = expected.pop("explanation_contains", None)
        actual = {
            "outcome": score.outcome,
            "rule": score.rule,
            "normalized": score.normalized,
            "extracted": score.extracted,
            "format_ok": score.format_ok,
        }
        failures += _mismatches(row["id"], expected, actual)
        if contains is not None and contains not in score.explanation:
            failures.append(f"{row['id']}: explanation {score.explanation!r} lacks {contains!r}")
        unknown = [part for part in score.rule.split("+") if part not in RULES]
        if unknown:
            failures.append(f"{row['id']}: rule parts {unknown} have no sentence in RULES")
        if not score.explanation:
            failures.append(f"{row['id']}: empty explanation")
    _report(failures, len(rows))
