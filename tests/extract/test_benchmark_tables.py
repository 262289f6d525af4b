"""Extraction and scoring cases as tables, one test per table row (cases/*.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.extract.choice import extract_choice
from proctor.extract.code import extract_code
from proctor.extract.lmeval import lmeval_exact_match, lmeval_filters
from proctor.extract.maths import extract_maths
from proctor.score.maths import grade_maths
from proctor.tasks import gsm8k
from proctor.types import Record, Sample, Usage

CASES = Path(__file__).parent / "cases" / "benchmarks"


def table(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))["cases"]
    return rows


def row_id(row: dict[str, Any]) -> str:
    return str(row.get("text", ""))[:40]


def sample(target: str, answer_type: str = "integer", question: str = "q") -> Sample:
    return Sample(id="s", input=question, target=target, answer_type=answer_type)  # type: ignore[arg-type]


@pytest.mark.parametrize("row", table("maths_extraction_cases.json"), ids=row_id)
def test_maths_extraction_and_grade(row: dict[str, Any]) -> None:
    numeric = row["task"] in ("gsm8k", "aime")
    found = extract_maths(
        row["text"],
        asked=("boxed", "final_answer"),
        numeric=numeric,
        question=row.get("input", "q"),
    )
    assert (found.value, found.rule) == (row["value"], row["rule"])
    score = grade_maths(
        row["text"],
        row.get("finish_reason", "stop"),
        sample(row["target"], question=row.get("input", "q")),
        asked=("boxed",),
        numeric=numeric,
    )
    assert score.outcome == row["outcome"], score.explanation


@pytest.mark.parametrize("row", table("lmeval_cases.json"), ids=row_id)
def test_lmeval_filters_and_ours_on_the_same_reply(row: dict[str, Any]) -> None:
    f = lmeval_filters(row["text"], cot=True)
    assert f.strict_match == row["strict"]
    assert f.flexible_extract == row["flexible"]
    assert lmeval_exact_match(f.strict_match, row["target"]) is row["lmeval_strict_ok"]
    assert lmeval_exact_match(f.flexible_extract, row["target"]) is row["lmeval_flexible_ok"]
    record = Record("r", "m", "s", "ok", row["text"], "stop", Usage(), 0.0, 1, "zero-shot", "en")
    ours = gsm8k.grade_record(record, sample(row["target"]))
    assert (ours.outcome == "correct") is row["ours_ok"], ours.explanation
    assert "lm-eval strict-match" in ours.explanation


def test_lmeval_plain_gsm8k_strict_match_reads_hash_marks() -> None:
    f = lmeval_filters("She pays 5 + 3 = 8.\n#### 8", cot=False)
    assert f.strict_match == "8"
    assert lmeval_filters("The answer is 8.", cot=False).strict_match == "[invalid]"


@pytest.mark.parametrize("row", table("choice_cases.json"), ids=row_id)
def test_choice_extraction(row: dict[str, Any]) -> None:
    found = extract_choice(row["text"], choices=row.get("choices", ()))
    assert (found.value, found.rule) == (row["letter"], row["rule"])


@pytest.mark.parametrize("row", table("code_extraction_cases.json"), ids=row_id)
def test_code_extraction(row: dict[str, Any]) -> None:
    found = extract_code(row["text"], entry_point=row["entry_point"])
    assert found.rule == row["rule"]
    if row["contains"] is None:
        assert found.value is None
    else:
        assert found.value is not None and row["contains"] in found.value
    if found.value is not None:
        assert bool(found.note) is row["unclosed"]
