"""The calculator a model may be offered: the same exact arithmetic as the generator.

`calculate` maps the display operators (× ÷ −) to ASCII, evaluates with `exact_eval.evaluate`
(an AST walk over `Fraction`s, never `eval`) and gives an exact string: an integer, a
terminating decimal, or a reduced fraction p/q. Bad input gives "error: …", never an exception.
"""

from __future__ import annotations

from fractions import Fraction

from proctor.datasets.exact_eval import evaluate
from proctor.extract.normalize import decimal_string

__all__ = ["calculate", "exact_text"]

_DISPLAY = str.maketrans({"×": "*", "÷": "/", "−": "-", "–": "-"})
MAX_EXPRESSION = 1000


def exact_text(value: Fraction) -> str:
    """An integer, a terminating decimal, or p/q: never a rounded float."""
    return decimal_string(value) or f"{value.numerator}/{value.denominator}"


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
