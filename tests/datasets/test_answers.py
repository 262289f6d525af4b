"""Target strings: ROUND_HALF_UP decimals with exactly `places` digits, reduced fractions,
comparison signs, and the places a value needs."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest

from proctor.datasets.answers import (
    comparison_target,
    decimal_target,
    fraction_target,
    natural_places,
)

DECIMALS: list[tuple[Fraction, int, str]] = [
    (Fraction(1, 8), 2, "0.13"),  # a tie goes up
    (Fraction(-1, 8), 2, "-0.13"),  # and away from zero
    (Fraction(1, 3), 2, "0.33"),
    (Fraction(2, 3), 3, "0.667"),
    (Fraction(5), 2, "5.00"),
    (Fraction(25, 2), 2, "12.50"),
    (Fraction(1249, 1000), 2, "1.25"),
    (Fraction(1244999, 1000000), 2, "1.24"),
    (Fraction(12345, 10000), 3, "1.235"),
    (Fraction(-1, 1000), 2, "0.00"),
    (Fraction(99733, 334), 3, "298.602"),
    (Fraction(7, 2), 0, "4"),
    (Fraction(-7, 2), 0, "-4"),
    (Fraction(1, 7), 6, "0.142857"),
]


@pytest.mark.parametrize(("value", "places", "text"), DECIMALS)
def test_decimal_target(value: Fraction, places: int, text: str) -> None:
    assert decimal_target(value, places) == text


@pytest.mark.parametrize(("value", "places", "text"), DECIMALS)
def test_decimal_target_agrees_with_the_decimal_module(
    value: Fraction, places: int, text: str
) -> None:
    with localcontext() as ctx:
        ctx.prec = 80
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        expected = exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    assert Decimal(decimal_target(value, places)) == expected


FRACTIONS: list[tuple[Fraction, str, str]] = [
    (Fraction(6, 8), "3/4", "fraction"),
    (Fraction(-6, 8), "-3/4", "fraction"),
    (Fraction(3, -7), "-3/7", "fraction"),
    (Fraction(14, 7), "2", "integer"),
    (Fraction(-14, 7), "-2", "integer"),
    (Fraction(0), "0", "integer"),
]


@pytest.mark.parametrize(("value", "text", "answer_type"), FRACTIONS)
def test_fraction_target(value: Fraction, text: str, answer_type: str) -> None:
    assert fraction_target(value) == (text, answer_type)


@pytest.mark.parametrize(
    ("left", "right", "sign"),
    [
        (Fraction(3, 7), Fraction(5, 11), "<"),
        (Fraction(5, 11), Fraction(3, 7), ">"),
        (Fraction(9, 21), Fraction(3, 7), "="),
    ],
)
def test_comparison_target(left: Fraction, right: Fraction, sign: str) -> None:
    assert comparison_target(left, right) == sign


@pytest.mark.parametrize(
    ("value", "places"),
    [
        (Fraction(5), 0),
        (Fraction(1, 8), 3),
        (Fraction(3, 20), 2),
        (Fraction(1, 3), None),
        (Fraction(-7, 40), 3),
        (Fraction(1, 6), None),
    ],
)
def test_natural_places(value: Fraction, places: int | None) -> None:
    assert natural_places(value) == places
