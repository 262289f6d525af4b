"""Compare an extracted answer with a sample's target, one rule per answer type.

Each rule's docstring is the sentence a report shows next to its verdicts. A number that equals
the target in value but is written in another form than the question asked (a fraction where a
decimal was asked, "0.75" or "6/8" where the reduced fraction "3/4" was asked, a percent) is a
`format_only` miss: wrong, and counted apart so the error taxonomy can tell it from a wrong value.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

from proctor._util.rule_docs import one_line, rule_docs
from proctor.extract import NumberToken, read_comparison
from proctor.extract.normalize import decimal_string

FORMAT_ONLY = "format_only"
FLOAT_ARTEFACT = "float_artefact"
ARTEFACT_DIGITS = 12
"""A float artefact differs from its target only past this many significant digits."""
_ROUND_TO_ARTEFACT_DIGITS = Context(prec=ARTEFACT_DIGITS, rounding=ROUND_HALF_EVEN)


def _significant_digits(spelled: str) -> int:
    return len(spelled.lstrip("-").replace(".", "").lstrip("0").rstrip("0") or "0")


def float_artefact(answer: NumberToken, target: Fraction) -> bool:
    """A decimal answer written with more than 12 significant digits that rounds to the target at
    12 significant digits, the target itself having fewer: 0.30000000000000004 for 0.3 and
    2.9999999999999996 for 3 (a run of 0s or 9s past the target's digits, then binary noise)."""
    if answer.kind != "decimal" or answer.percent or answer.value == target:
        return False
    spelled, wanted = decimal_string(answer.value), decimal_string(target)
    if spelled is None or wanted is None or target == 0:
        return False
    if _significant_digits(spelled) <= ARTEFACT_DIGITS or _significant_digits(wanted) >= 11:
        return False
    return Fraction(_ROUND_TO_ARTEFACT_DIGITS.plus(Decimal(spelled))) == target


def _artefact_verdict(answer: NumberToken, target: NumberToken) -> Verdict | None:
    if not float_artefact(answer, target.value):
        return None
    why = f"a float artefact of {target.canonical} (equal to 12 significant digits)"
    return Verdict(True, FLOAT_ARTEFACT, why, target.canonical)


@dataclass(frozen=True)
class Verdict:
    """The result of one comparison: correct or not, the rule that decided, and why."""

    correct: bool
    rule: str
    reason: str
    normalized: str | None


def _format_miss(token: NumberToken, asked: str) -> Verdict | None:
    if token.percent:
        why = f"equal in value but given as a percent, {asked} was asked"
    elif token.kind == "mixed":
        why = f"equal in value but given as a mixed number, {asked} was asked"
    elif token.kind == "fraction" and not token.reduced:
        why = "equal in value but not in lowest terms"
    else:
        return None
    return Verdict(False, FORMAT_ONLY, why, token.canonical)


def integer_equal(answer: NumberToken, target: NumberToken) -> Verdict:
    """The extracted number must be an integer equal to the target ("1,234" and "1234.0" count,
    "1234.5" does not).
    """
    if answer.value == target.value:
        if answer.kind == "fraction":
            why = "equal in value but given as a fraction, an integer was asked"
            return Verdict(False, FORMAT_ONLY, why, answer.canonical)
        miss = _format_miss(answer, "an integer")
        if miss:
            return miss
    return _artefact_verdict(answer, target) or Verdict(
        answer.value == target.value, "integer_equal", "", answer.canonical
    )


def decimal_equal(answer: NumberToken, target: NumberToken) -> Verdict:
    """The extracted number must equal the target exactly in value; trailing zeros do not matter
    ("12.5" equals "12.50").
    """
    if answer.value == target.value:
        miss = _format_miss(answer, "a decimal")
        if miss is None and answer.kind == "fraction":
            miss = Verdict(
                False,
                FORMAT_ONLY,
                "equal in value but given as a fraction, a decimal was asked",
                answer.canonical,
            )
        if miss:
            return miss
    return _artefact_verdict(answer, target) or Verdict(
        answer.value == target.value, "decimal_equal", "", answer.canonical
    )


def fraction_equal(answer: NumberToken, target: NumberToken) -> Verdict:
    """The extracted answer must be a fraction in lowest terms equal to the target (an integer is
    fine when the target is one).
    """
    if answer.value == target.value:
        miss = _format_miss(answer, "a reduced fraction")
        if miss is None and answer.kind == "decimal" and answer.value.denominator != 1:
            miss = Verdict(
                False,
                FORMAT_ONLY,
                "equal in value but given as a decimal, a reduced fraction was asked",
                answer.canonical,
            )
        if miss:
            return miss
    return Verdict(answer.value == target.value, "fraction_equal", "", answer.canonical)


def comparison_equal(answer: str, target: str, operands: Sequence[Fraction]) -> Verdict:
    """The extracted comparison, read for the question's operands in their order, must be the
    target symbol (<, > or =).
    """
    symbol = read_comparison(answer, operands)
    return Verdict(symbol == target, "comparison_equal", "", symbol)


def _text_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def text_equal(answer: str, target: str) -> Verdict:
    """The extracted text must equal the target after NFKC, case folding and collapsing
    whitespace.
    """
    return Verdict(_text_key(answer) == _text_key(target), "text_equal", "", _text_key(answer))


COMPARE_RULES: dict[str, str] = rule_docs(
    integer_equal, decimal_equal, fraction_equal, comparison_equal, text_equal
)
COMPARE_RULES[FLOAT_ARTEFACT] = one_line(float_artefact.__doc__)
COMPARE_RULES[FORMAT_ONLY] = (
    "The number equals the target in value but is not written in the form the question asked"
    " for, so it is wrong."
)
