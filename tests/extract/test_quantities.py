"""The quantity reader: its case tables (cases/*.json, one test per table, every failing row
named), the span invariant, and hostile input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from proctor.extract.quantities import Quantity, find_quantities, show
from proctor.extract.quantity_match import compare_quantities, expected_quantity, grade_answer

CASES = Path(__file__).parent / "cases"


def rows(name: str) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))["rows"]
    ids = [r["id"] for r in table]
    assert len(ids) == len(set(ids)), f"{name}: duplicate row ids"
    return table


def spec(q: Quantity) -> str:
    """A quantity in the tables' compact form."""
    if q.kind in ("date", "time"):
        return f"{q.kind} {q.stamp}"
    if q.kind in ("label", "ambiguous"):
        return f"{q.kind} {q.text}"
    mark = q.bound or ("~" if q.hedge else "")
    value = show(q.value) if q.high is None else f"{show(q.value)}..{show(q.high)}"
    unit = (
        f" {q.unit.key}"
        if q.unit is not None
        else (f" ?{q.unknown_unit}" if q.unknown_unit else "")
    )
    return f"{mark}{value}{unit}"


def test_quantities_table() -> None:
    table = rows("quantities.json")
    failures = []
    for r in table:
        found = find_quantities(r["text"])
        got = [spec(q) for q in found]
        if got != r["found"]:
            failures.append(f"{r['id']}: {r['text']!r} expected {r['found']}, got {got}")
        for q in found:
            if r["text"][q.start : q.end] != q.text:
                failures.append(f"{r['id']}: span {q.start}:{q.end} is not {q.text!r}")
    assert len(table) >= 200
    assert not failures, f"{len(failures)} of {len(table)} rows failed:\n" + "\n".join(failures)


def test_spans_are_spans_of_the_original_text() -> None:
    text = (
        "约１８万吨（２０２３年），**$12.4 billion**，百分之三十五点七，"
        "14–16 days，\x1b[1m1.8×10⁵\x1b[0m t"
    )
    found = find_quantities(text)
    assert [q.text for q in found] == [
        "约１８万吨", "２０２３年", "$12.4 billion", "百分之三十五点七", "14–16 days", "1.8×10⁵",
    ]  # fmt: skip
    assert all(text[q.start : q.end] == q.text for q in found)


@pytest.mark.parametrize(
    "text",
    [
        "\ud800 42 \udfff",
        "9" * 20000,
        "1e" + "9" * 5000,
        "一" * 5000,
        "one " * 5000,
        "\\boxed{" * 300 + "42" + "}" * 300,
        "1," * 5000,
        "-" * 5000 + "5",
        "%" * 1000,
        "1 " * 20000,
        "\x00\x1b[2J\x1b]0;title\x07 12 \u202e34",
        "𝟏𝟐𝟑 ①②③ ½",
    ],
)
def test_hostile_text_reads_without_error(text: str) -> None:
    for q in find_quantities(text):
        assert text[q.start : q.end] == q.text
        assert q.kind in ("number", "range", "date", "time", "label", "ambiguous")


def test_random_text_never_raises_and_spans_hold() -> None:
    rng = random.Random(20)
    alphabet = [
        *"0123456789,.-–~ %$¥万亿十一二三点百分之约左右kKmMtx×^e年月日:/()，。",
        *("tonnes", " to ", "between", " and ", "about", "吨", "元", "billion", "percent"),
    ]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        for q in find_quantities(text):
            assert text[q.start : q.end] == q.text, text


def test_answers_table() -> None:
    table = rows("answers.json")
    failures = []
    for r in table:
        expected = expected_quantity(
            r["expected"], r["unit"], r.get("tolerance"), r.get("rel_tolerance")
        )
        assert expected is not None, r["id"]
        got = grade_answer(r["answer"], expected)
        if got.verdict != r["verdict"] or r.get("rule", got.rule) != got.rule:
            failures.append(
                f"{r['id']}: {r['answer']!r} expected {r['verdict']} "
                f"[{r.get('rule', '')}], got {got.verdict} [{got.rule}] {got.reason}"
            )
        elif r.get("reason_has", "") not in got.reason:
            failures.append(f"{r['id']}: reason {got.reason!r} lacks {r['reason_has']!r}")
    assert len(table) >= 100
    assert not failures, f"{len(failures)} of {len(table)} rows failed:\n" + "\n".join(failures)


@pytest.mark.parametrize(
    ("first", "second", "agreement"),
    [
        ("180000吨", "18万吨", "same"),
        ("180000吨", "十五万吨", "different"),
        ("1.2 billion", "1,200 million", "same"),
        ("120 days", "eighty-five days", "different"),
        ("120 days", "about three months", "unknown"),
        ("85天", "85 days", "same"),
        ("15", "14–16", "same"),
        ("12", "14–16", "different"),
        ("14–16", "14-16", "same"),
        ("14–16", "15–17", "unknown"),
        ("180000 t", "180000 km", "different"),
        ("5 tons", "5 t", "unknown"),
        ("35.7%", "0.357", "different"),
        ("$12.4 billion", "12.4 billion", "same"),
        ("5 business days", "5 calendar days", "unknown"),
        ("45 staff", "$45", "unknown"),
        ("45 staff", "forty-five staff", "same"),
        ("45 staff", "45 people", "unknown"),
    ],
)
def test_compare_quantities(first: str, second: str, agreement: str) -> None:
    a, b = (next(q for q in find_quantities(x) if q.is_quantity) for x in (first, second))
    got = compare_quantities(a, b)
    assert got.agreement == agreement, got.reason


def test_public_number_word_cases() -> None:
    table = json.loads((CASES / "numerals_public.json").read_text(encoding="utf-8"))["rows"]
    failures = []
    for r in table:
        found = [q for q in find_quantities(r["text"]) if q.is_quantity]
        got = [show(q.value) for q in found if q.start == 0 and q.end == len(r["text"])]
        want = [] if r["value"] is None else [r["value"]]
        if got != want or (r["value"] is None and found):
            failures.append(f"{r['source']}: {r['text']!r} expected {want}, got {found}")
    assert len(table) >= 70
    assert not failures, f"{len(failures)} of {len(table)} rows failed:\n" + "\n".join(failures)
