"""The exact evaluator: a table of expressions and their exact values, and a table of rejections."""

from __future__ import annotations

from fractions import Fraction

import pytest

from proctor.datasets.exact_eval import evaluate

VALUES: list[tuple[str, Fraction]] = [
    ("0.1 + 0.2", Fraction(3, 10)),
    ("0.1 + 0.2 - 0.3", Fraction(0)),
    ("1.10 * 3", Fraction(33, 10)),
    ("42", Fraction(42)),
    ("2 + 3 * 4", Fraction(14)),
    ("(2 + 3) * 4", Fraction(20)),
    ("2 - 3 - 4", Fraction(-5)),
    ("2 - (3 - 4)", Fraction(3)),
    ("-5 + 2", Fraction(-3)),
    ("-(3 - 5) * 2", Fraction(4)),
    ("+7", Fraction(7)),
    ("--3", Fraction(3)),
    ("7 / 2", Fraction(7, 2)),
    ("(3/7) / (5/11)", Fraction(33, 35)),
    ("3/7/5/11", Fraction(3, 385)),
    ("7 // 2", Fraction(3)),
    ("-7 // 2", Fraction(-4)),
    ("7 % 3", Fraction(1)),
    ("-7 % 3", Fraction(2)),
    ("4821 // 37", Fraction(4821 // 37)),
    ("735482 * 1849", Fraction(735482 * 1849)),
    ("12.345 - 12.3449", Fraction(1, 10000)),
    ("99999999999999999999 + 1", Fraction(10**20)),
    ("  (47 + 38) * 6 - 29  ", Fraction(481)),
    ("997.33 / 3.34", Fraction(99733, 334)),
]


@pytest.mark.parametrize(("expression", "value"), VALUES)
def test_exact_values(expression: str, value: Fraction) -> None:
    result = evaluate(expression)
    assert isinstance(result, Fraction)
    assert result == value


REJECTED: list[tuple[str, str]] = [
    ("x + 1", "Name is not allowed"),
    ("abs(-1)", "Call is not allowed"),
    ("math.pi", "Attribute is not allowed"),
    ("2 ** 3", "Pow is not allowed"),
    ("'12'", "not a number"),
    ("lambda: 1", "Lambda is not allowed"),
    ("__import__('os')", "Call is not allowed"),
    ("1 < 2", "Compare is not allowed"),
    ("(1, 2)", "Tuple is not allowed"),
    ("[1][0]", "not allowed"),
    ("~5", "Invert is not allowed"),
    ("6 & 3", "BitAnd is not allowed"),
    ("True + 1", "not a number"),
    ("1e5", "plain decimal literal"),
    ("1_000", "plain decimal literal"),
    ("0x10", "plain decimal literal"),
    ("2j", "not a number"),
    ("1 / 0", "division by zero"),
    ("5 % (2 - 2)", "division by zero"),
    ("1 +", "not an arithmetic expression"),
    ("4821 × 37", "not an arithmetic expression"),
    ("", "not an arithmetic expression"),
    ("1 if 1 else 2", "IfExp is not allowed"),
]


@pytest.mark.parametrize(("expression", "fragment"), REJECTED)
def test_rejections(expression: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(")):
        evaluate(expression)


def test_deep_nesting_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        evaluate("+".join(["1"] * 200_000))
