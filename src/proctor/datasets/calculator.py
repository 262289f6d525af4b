"""The calculator a model may be offered: the same exact arithmetic as the generator.

`calculate` maps the display operators (× ÷ −) to ASCII, evaluates with `exact_eval.evaluate`
(an AST walk over `Fraction`s, never `eval`) and gives an exact string: an integer, a
terminating decimal, or a reduced fraction p/q. Bad input gives "error: …", never an exception.
"""

from __future__ import annotations

from fractions import Fraction

from proctor.datasets.exact_eval import evaluate

__all__ = ["calculate", "exact_text"]

_DISPLAY = str.maketrans({"×": "*", "÷": "/", "−": "-", "–": "-"})
MAX_EXPRESSION = 1000


def exact_text(value: Fraction) -> str:
    """An integer, a terminating decimal, or p/q: never a rounded float."""
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{value.numerator}/{value.denominator}"
    places = max(twos, fives)
    scaled = abs(value) * 10**places
    digits = str(scaled.numerator // scaled.denominator).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def calculate(expression: str) -> str:
    """The exact value of `expression`, as text; "error: …" when it cannot be evaluated."""
    if not isinstance(expression, str) or not expression.strip():
        return "error: empty expression"
    if len(expression) > MAX_EXPRESSION:
        return f"error: expression longer than {MAX_EXPRESSION} characters"
    if "**" in expression:
        return "error: powers are not supported"
    try:
        value = evaluate(expression.translate(_DISPLAY))
    except ValueError as e:
        return f"error: {e}"
    return exact_text(value)
