"""Gate requirements, parsed (cases/requirements.json) and checked on graded items
(cases/evaluate.json); the baseline check with the exact McNemar test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.stats.gates import evaluate, not_worse_than, parse_requirement
from proctor.types import GradedItem, Record, Sample, Score, Usage

CASES = Path(__file__).parent / "cases"
PARSE: list[dict[str, Any]] = json.loads((CASES / "requirements.json").read_text("utf-8"))
EVALUATE: list[dict[str, Any]] = json.loads((CASES / "evaluate.json").read_text("utf-8"))


@pytest.mark.parametrize("row", PARSE, ids=[r["text"] or "(empty)" for r in PARSE])
def test_parse_requirement(row: dict[str, Any]) -> None:
    if "error" in row:
        with pytest.raises(ConfigError) as info:
            parse_requirement(row["text"])
        assert row["error"] in str(info.value)
        return
    req = parse_requirement(row["text"])
    assert [list(f) for f in req.filters] == row["filters"]
    assert (req.metric, req.op) == (row["metric"], row["op"])
    assert req.threshold == pytest.approx(row["threshold"])


def item(
    model: str, sid: str, kind: str, epoch: int, outcome: str, norm: str | None, fmt: bool
) -> GradedItem:
    sample = Sample(sid, "q", "t", category=kind, answer_type="text", metadata={"kind": kind})
    status = "call_failed" if outcome == "call_failed" else "ok"
    record = Record(
        "r", model, sid, status, "x", "stop", Usage(), 0.1, 1, "suite", "en", epoch=epoch
    )  # type: ignore[arg-type]
    return GradedItem(sample, record, Score(outcome, "rule", "why", norm, norm, fmt))  # type: ignore[arg-type]


@pytest.mark.parametrize("row", EVALUATE, ids=[r["name"] for r in EVALUATE])
def test_evaluate(row: dict[str, Any]) -> None:
    """The table's rows measure values on a handful of items: their pass/fail is the
    point-estimate rule's, named; the default rule (the interval's bound) is checked beside it:
    it never passes what the point estimate fails, and never fails what it passes."""
    items = [item(*i) for i in row["items"]]
    models = list(dict.fromkeys(i.record.model for i in items))
    judge = {(m, s, e): v for m, s, e, v in row.get("judge", [])}
    rows = evaluate([parse_requirement(row["require"])], items, models, judge, rule="point")
    got = [[r.model, r.value, r.n, r.passed] for r in rows]
    assert got == [
        [m, pytest.approx(v) if v is not None else None, n, p] for m, v, n, p in row["rows"]
    ]
    if "note" in row:
        assert all(row["note"] in r.note for r in rows)
    assert all("point-estimate rule" in r.note for r in rows if r.value is not None)
    bound = evaluate([parse_requirement(row["require"])], items, models, judge)
    for by_point, by_bound in zip(rows, bound, strict=True):
        assert by_bound.value == by_point.value
        if by_bound.passed:
            assert by_point.passed
        if by_point.passed:
            assert by_bound.passed or by_bound.inconclusive


def _answers(model: str, correct: int, wrong: int) -> list[GradedItem]:
    outcomes = ["correct"] * correct + ["wrong"] * wrong
    return [item(model, f"c{i}", "extraction", 0, o, None, True) for i, o in enumerate(outcomes)]


def test_significantly_worse_than_the_baseline_fails() -> None:
    row = not_worse_than(
        _answers("new", 28, 12), _answers("old", 40, 0), label="RUN_B", model="new"
    )
    assert not row.passed
    assert row.n == 40 and row.value == pytest.approx(-0.3)
    assert "old" not in row.note and "RUN_B better than new" in row.note


def test_a_small_drop_is_not_significant_and_passes() -> None:
    row = not_worse_than(_answers("new", 38, 2), _answers("old", 40, 0), label="RUN_B", model="new")
    assert row.passed
    assert "not distinguishable" in row.note


def test_no_common_case_fails() -> None:
    other = [item("old", "zzz", "summary", 0, "correct", None, True)]
    row = not_worse_than(_answers("new", 3, 0), other, label="RUN_B", model="new")
    assert (row.passed, row.value, row.note) == (False, None, "no case scored in both runs")
