"""The arithmetic error taxonomy, walked from a table: every row is a case, every bug a new row."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from proctor.stats.taxonomy import (
    ERROR_CLASSES,
    TAXONOMY_RULES,
    classify_error,
    taxonomy_counts,
)
from proctor.types import GradedItem, Record, Sample, Score, Usage

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "taxonomy_cases.json").read_text(encoding="utf-8")
)
META_KEYS = ("expression", "operands", "op", "rounding")


def _sample(case: dict[str, Any]) -> Sample:
    return Sample(
        id="s",
        input=case.get("expression", ""),
        target=case["target"],
        answer_type=case.get("answer_type", "integer"),
        metadata={key: case[key] for key in META_KEYS if key in case},
    )


def _score(case: dict[str, Any]) -> Score:
    return Score(
        outcome=case.get("outcome", "wrong"),
        rule=case.get("rule", "final_answer_line+integer_equal"),
        explanation="",
        extracted=case["answer"],
        normalized=case["answer"],
    )


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    assert classify_error(_sample(case), _score(case)) == case["expected"]


def test_every_class_has_a_rule_and_cases() -> None:
    assert set(ERROR_CLASSES) == set(TAXONOMY_RULES)
    covered = {case["expected"] for case in CASES}
    assert set(ERROR_CLASSES) <= covered
    for name in ERROR_CLASSES:
        assert sum(case["expected"] == name for case in CASES) >= 2, name
    for rule in TAXONOMY_RULES.values():
        assert rule.endswith(".") and rule.count(". ") == 0  # one sentence


def test_counts_per_model() -> None:
    def item(model: str, case: dict[str, Any]) -> GradedItem:
        record = Record(
            run_id="r", model=model, sample_id="s", status="ok", text="", finish_reason="stop",
            usage=Usage(), latency_s=0.0, attempts=1, prompt_variant="B", lang="en",
        )  # fmt: skip
        return GradedItem(_sample(case), record, _score(case))

    by_name = {case["why"]: case for case in CASES}
    items = [
        item("m1", by_name["one digit dropped"]),
        item("m1", by_name["carry into the tens forgotten"]),
        item("m1", by_name["two carries forgotten"]),
        item("m1", by_name["correct answers are not classified"]),
        item("m2", by_name["correct answers are not classified"]),
    ]
    counts = taxonomy_counts(items)
    assert counts == {"m1": {"carry_borrow": 2, "dropped_or_extra_digit": 1}, "m2": {}}
    assert list(counts["m1"]) == ["carry_borrow", "dropped_or_extra_digit"]  # rule order


def _every_variant(expression: str) -> frozenset[Fraction]:
    """Reference for the wrong-operation values: evaluate the whole tree once per variant."""
    import ast

    from proctor.stats import taxonomy

    tree = taxonomy._expression(expression)
    if tree is None:
        return frozenset()
    values = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp):
            continue
        for op_type in taxonomy._OPS:
            if taxonomy._family(op_type) != taxonomy._family(type(node.op)):
                value = taxonomy._evaluate(tree, {id(node): taxonomy._OPS[op_type]})
                if value is not None:
                    values.add(value)
    return frozenset(values)


def test_wrong_operation_values_recomputed_only_above_the_swap_are_every_variants() -> None:
    """The wrong-operation rule recomputes only the swapped node and those above it; the values
    must be those of evaluating every variant whole (generated questions and odd shapes)."""
    from proctor.datasets.arithmetic import generate
    from proctor.stats import taxonomy

    expressions = [s.metadata.get("expression", "") for s in generate(11, 3000)] + [
        "1/(2-2)+3", "(4-1)*5//(3-2)", "-(3+4)*2", "7//2*3-1", "2.5*4-1/3",
        "((1+2)*(3-4))%5", "10/(5-4)-2*3", "-(-(2*3)+4)",
    ]  # fmt: skip
    for expression in expressions:
        tree = taxonomy._expression(expression)
        got = taxonomy._wrong_operation_values(tree, set())
        assert got == _every_variant(expression), expression
