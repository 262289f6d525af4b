"""`units.calendar_span`: months, quarters and years against days and weeks, as intervals."""

from fractions import Fraction

import pytest

from proctor.extract.units import calendar_span, unit_named


@pytest.mark.parametrize(
    ("value", "unit", "to", "span"),
    [
        (3, "months", "days", (84, 93)),
        (1, "year", "days", (365, 366)),
        (1, "个季度", "days", (89, 92)),
        (2, "weeks", "months", (Fraction(14, 31), Fraction(1, 2))),
        (120, "days", "months", (Fraction(120, 31), Fraction(30, 7))),
        (1, "month", "weeks", (4, Fraction(31, 7))),
        (3, "days", "hours", None),  # both time: an exact factor, not a span
        (3, "months", "years", None),  # both calendar
        (3, "months", "tonnes", None),
    ],
)
def test_calendar_span(value: int, unit: str, to: str, span: object) -> None:
    a, b = unit_named(unit), unit_named(to)
    assert a is not None and b is not None
    assert calendar_span(Fraction(value), a, b) == span
