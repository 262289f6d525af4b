"""Walk each case table in cases/: one test per table, every failing row named by its id."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from proctor.score.structured import (
    Calibration,
    StructuredItem,
    StructuredScorer,
    Timeliness,
    Traceability,
    parse_iso_date,
    parse_structured,
)

CASES = Path(__file__).parent / "cases"


def _rows(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))["rows"]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), f"{name}: duplicate row ids"
    return rows


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, abs_tol=1e-9)


def _report(failures: list[str], rows: int) -> None:
    assert not failures, f"{len(failures)} of {rows} rows failed:\n" + "\n".join(failures)


def test_calibration_table() -> None:
    rows = _rows("calibration_cases.json")
    failures = []
    for r in rows:
        got = Calibration().score(r["confidence"], r["correct"])
        if not _close(got.value, r["score"]) or len(got.lost) != r["lost"]:
            failures.append(f"{r['id']}: expected {r['score']}/{r['lost']}, got {got}")
    _report(failures, len(rows))


def test_timeliness_table() -> None:
    rows = _rows("timeliness_cases.json")
    failures = []
    for r in rows:
        question = parse_iso_date(r["question_time"])
        assert question is not None, r["id"]
        rule = Timeliness(r.get("discount", 0.2))
        got = rule.score(question, r["valid_until"], r["time_sensitive"])
        if not _close(got.value, r["score"]) or len(got.lost) != r["lost"]:
            failures.append(f"{r['id']}: expected {r['score']}/{r['lost']}, got {got}")
    _report(failures, len(rows))


def test_traceability_table() -> None:
    rows = _rows("traceability_cases.json")
    failures = []
    for r in rows:
        got = Traceability().score(r["citations"], tuple(r.get("data_point", ())))
        if not _close(got.value, r["score"]) or len(got.lost) != r["lost"]:
            failures.append(f"{r['id']}: expected {r['score']}/{r['lost']}, got {got}")
    _report(failures, len(rows))


def test_schema_table() -> None:
    rows = _rows("schema_cases.json")
    failures = []
    for r in rows:
        got = parse_structured(r["text"])
        if (got.answer is not None) != r["valid"]:
            failures.append(f"{r['id']}: expected valid={r['valid']}, got {got}")
            continue
        if "reason" in r and r["reason"] not in got.error:
            failures.append(f"{r['id']}: reason {got.error!r} lacks {r['reason']!r}")
        if "answer" in r and (got.answer is None or got.answer.answer != r["answer"]):
            failures.append(f"{r['id']}: answer expected {r['answer']!r}, got {got.answer}")
        if "note" in r and not any(r["note"] in n for n in got.notes):
            failures.append(f"{r['id']}: no note about {r['note']!r} in {got.notes}")
    _report(failures, len(rows))


def test_total_table() -> None:
    rows = _rows("total_cases.json")
    failures = []
    for r in rows:
        it = r["item"]
        question = parse_iso_date(it["question_time"])
        assert question is not None
        item = StructuredItem(it["expected"], question, it["time_sensitive"])
        scorer = StructuredScorer(**({"weights": r["weights"]} if "weights" in r else {}))
        got = scorer.score_text(r["text"], item)
        actual = {
            "correct": got.correct,
            "calibration": got.axis("calibration"),
            "timeliness": got.axis("timeliness"),
            "traceability": got.axis("traceability"),
            "total": got.total,
            "attribution": len(got.attribution),
        }
        for key, value in actual.items():
            want = r[key]
            same = value == want if isinstance(want, bool) else _close(float(value), want)
            if not same:
                failures.append(f"{r['id']}: {key} expected {want!r}, got {value!r}")
        if not got.valid and not got.reason:
            failures.append(f"{r['id']}: invalid without a reason")
    _report(failures, len(rows))
