"""How an exact value is written as a target: integers plain, decimals with exactly `places`
digits after the point (ROUND_HALF_UP when the value needs more), fractions reduced "p/q" with
the sign on the numerator, comparisons as one of "<", ">", "="."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from proctor.extract.normalize import natural_places
from proctor.types import AnswerType

__all__ = ["comparison_target", "decimal_target", "fraction_target", "natural_places"]


def decimal_target(value: Fraction, places: int) -> str:
    """`value` rounded ROUND_HALF_UP (ties away from zero) to `places` digits, written with
    exactly that many digits after the point; exact, because rounding at `places` depends only
    on the digits up to `places + 1`, which truncation keeps."""
    if places < 0:
        raise ValueError("places must be >= 0")
    scaled = abs(value) * 10 ** (places + 1)
    truncated = Decimal(scaled.numerator // scaled.denominator).scaleb(-(places + 1))
    rounded = truncated.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = f"{rounded:.{places}f}"
    return "-" + text if value < 0 and rounded != 0 else text


def fraction_target(value: Fraction) -> tuple[str, AnswerType]:
    """A reduced "p/q" (sign on p) and "fraction", or the integer and "integer" when q is 1."""
    if value.denominator == 1:
        return str(value.numerator), "integer"
    return f"{value.numerator}/{value.denominator}", "fraction"


def comparison_target(left: Fraction, right: Fraction) -> str:
    """The sign that makes "left ? right" true."""
    return "<" if left < right else ">" if left > right else "="
