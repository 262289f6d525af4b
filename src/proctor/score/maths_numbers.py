"""Maths answers that are numbers: the exact comparison of two plain numbers (scale words,
percent conventions, float artefacts), an answer in number words or Chinese numerals, a decimal
comma, a thousands comma that could be a decimal one, and the one number an answer in words
states. The verdict type the maths grader returns is here too (`Equivalence`); the order of
the checks is `score.maths`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from proctor.extract.maths_form import AnswerForm
from proctor.extract.normalize import NumberToken, clean_text, find_numbers, parse_number
from proctor.extract.numerals import CN_NUMERAL_CHARS, ENGLISH_NUMBER
from proctor.extract.quantity_match import read_answer
from proctor.extract.scales import scale_named
from proctor.extract.stated import hedge, in_detail, rejected, signed, spaced_thousands
from proctor.score.compare import float_artefact
from proctor.score.maths_units import unit_conflict

Verdict = Literal["equal", "different", "ambiguous", "timeout", "error"]


@dataclass(frozen=True)
class Equivalence:
    verdict: Verdict
    rule: str
    normalized: str | None = None
    detail: str = ""


_DECIMAL_COMMA = re.compile(r"-?\d+,\d+")
_E_NOTATION = re.compile(r"-?\d{1,30}(?:\.\d{1,30})?[eE][-+]?\d{1,3}")
"""E notation with a bounded exponent (1e999999999 would take forever to make exact)."""


def number_of(form: AnswerForm) -> NumberToken | None:
    """The expression as one plain number ("1e3" in E notation too), else None."""
    if not form.expression:
        return None
    grouped = spaced_thousands(form.expression)
    if grouped is not None:
        return parse_number(grouped)
    if _E_NOTATION.fullmatch(form.expression.strip()):
        # |exponent| < 1000 (at most three digits): an exact value of bounded size
        value = Fraction(Decimal(form.expression.strip()))
        return NumberToken(form.expression.strip(), value, "decimal")
    return parse_number(form.expression)


def _decimal_comma(expression: str) -> Fraction | None:
    """The value of "1000,99" read with a decimal comma (None unless it has that shape and the
    comma is no thousands separator)."""
    text = expression.strip()
    if not _DECIMAL_COMMA.fullmatch(text) or parse_number(text) is not None:
        return None
    return Fraction(text.replace(",", "."))


def _thousands_or_decimal(expression: str) -> Fraction | None:
    """The decimal-comma reading of a valid thousands grouping ("1,222" → 1.222), else None."""
    text = expression.strip()
    if not re.fullmatch(r"-?\d{1,3},\d{3}", text):
        return None
    return Fraction(text.replace(",", "."))


def value_of(form: AnswerForm, token: NumberToken) -> Fraction:
    value = token.value * (scale_named(form.scale) or 1)
    return value / 100 if form.percent else value


_ASKS_PERCENT = re.compile(
    r"\bwhat\s+(?:\w+\s+)?percent|\bas\s+a\s+percent|\bin\s+percent|\bhow\s+many\s+percent"
    r"|\bpercent(?:age)?\s+of\s+(?:the\s+)?(?:\w+\s+)?(?:is|are|was|were|did|does)\b|百分之几|百分比",
    re.IGNORECASE,
)


_QUESTION_SENTENCE = re.compile(r"(?:[^.?!。？！]|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Prof|vs|etc)\.)*[?？]")
_PERCENT_ASKED = re.compile(r"(?<![\d\s])\s*\bpercent(?:age)?\b|百分比|百分之几", re.IGNORECASE)
"""The word percent(age) in a question sentence, not after a number ("2 percent of it" is data)."""


def _asks_percent(question: str) -> bool:
    """Whether the question asks for a percent: "what percent …", "as a percent", or a question
    sentence about a percentage in any wording ("What is the percentage discount?")."""
    if _ASKS_PERCENT.search(question):
        return True
    return any(_PERCENT_ASKED.search(m.group()) for m in _QUESTION_SENTENCE.finditer(question))


def compare_numbers(
    a: AnswerForm, a_num: NumberToken, t: AnswerForm, t_num: NumberToken, question: str
) -> Equivalence:
    spell = spelled(value_of(a, a_num))
    if value_of(a, a_num) == value_of(t, t_num):
        return Equivalence("equal", "scale" if a.scale or t.scale else "exact_number", spell)
    # A percent target X% is answered by X with the sign left out, and a reply X% answers the
    # whole-number target X when the question asks for a percent (MATH's "what percent …?"
    # targets drop the sign); whole numbers only, so 0.28% is never 0.28, and 2000% never
    # answers a question about calories.
    whole = a_num.value == t_num.value and a_num.value.denominator == 1
    if whole and t.percent and not a.percent:
        return Equivalence("equal", "exact_number", spell)
    if whole and a.percent and not t.percent and _asks_percent(question):
        return Equivalence("equal", "exact_number", spell)
    if not a.percent and not t.percent and float_artefact(a_num, t_num.value):
        return Equivalence("equal", "float_artefact", spelled(t_num.value))
    return Equivalence("different", "exact_number", spell)


def spelled(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def unit_conflict_verdict(a: AnswerForm, t: AnswerForm, question: str) -> Equivalence | None:
    found = unit_conflict(a.unit, t.unit, question)
    return unit_equivalence(found) if found is not None else None


def unit_equivalence(found: tuple[str, str]) -> Equivalence:
    verdict, why = found
    if verdict == "ambiguous":
        return Equivalence("ambiguous", "ambiguous", None, why)
    return Equivalence("different", "unit", None, why)


def stated_number(text: str) -> tuple[NumberToken | None, str]:
    """The one number an answer in words states ("18 dollars", "Jane started 3 hours ago"), or
    None and why not: no number, several different ones, a hedge ("18 or 19"), a rejected value
    ("not 18"); a number in a time or place phrase ("in 12 months") is a detail when the answer
    states another."""
    cleaned = signed(clean_text(text))
    numbers = [n for n in find_numbers(cleaned) if not rejected(cleaned, n[0])]
    if not numbers:
        return None, "no number"
    stated = [n for n in numbers if not in_detail(cleaned, n[0])]
    numbers = stated or numbers  # "220 $ d'ici 12 mois": 12 months is a detail of the answer
    offered = hedge(cleaned, numbers)
    if offered is not None:
        return None, f"a hedge between two values ({offered!r})"
    values = {n[2].value for n in numbers}
    if len(values) > 1:
        return None, "several different numbers"
    return numbers[0][2], ""


_CN_NUMERAL = re.compile("[" + CN_NUMERAL_CHARS + "]")
_ANSWER_END = " \t\n.。!！"


def number_words(
    expression: str, t: AnswerForm, target: Fraction, question: str
) -> Equivalence | None:
    """An answer in number words or Chinese numerals ("一百二十", "十二万", "twenty-five") read
    by the shared reader when it is one quantity and nothing else, compared with a numeric
    target; None when the answer has no number words or is more than one quantity (the other
    rules decide)."""
    text = expression.strip().rstrip(_ANSWER_END)
    if "\\" in text or not (_CN_NUMERAL.search(text) or ENGLISH_NUMBER.search(text)):
        return None
    reading = read_answer(text)
    q = reading.quantity
    if q is None:
        if not reading.ambiguous:
            return None
        verdict: Verdict = "different" if reading.problem.startswith("several") else "ambiguous"
        return Equivalence(verdict, "ambiguous" if verdict == "ambiguous" else "number_words",
                           None, f"the number reader: {reading.problem}")  # fmt: skip
    if q.start != 0 or q.end != len(text):
        return None  # "twelve apples": words the reader leaves unread, so not one quantity
    if q.kind != "number" or q.hedged:
        why = f"the answer {q.text!r} is a range, a bound or a hedge, not one number"
        return Equivalence("different", "number_words", None, why)
    if q.unit is not None:
        if q.unit.dimension in ("ratio", "percentage points"):
            return None  # 百分之二十 against 20 or 0.2: the percent conventions decide
        found = unit_conflict(q.unit.name, t.unit, question, unit=q.unit)
        if found is not None:
            return unit_equivalence(found)
    verdict = "equal" if q.value == target else "different"
    return Equivalence(verdict, "number_words", spelled(q.value))


def decimal_comma_verdict(
    a: AnswerForm, a_num: NumberToken | None, t: AnswerForm, t_num: NumberToken | None
) -> Equivalence | None:
    """1000,99 against a decimal target (or 1,22 as a target against a decimal answer); a valid
    thousands grouping whose decimal reading alone matches (1,222 for 1.222) is ambiguous."""
    for this, this_num, other_num in ((a, a_num, t_num), (t, t_num, a_num)):
        if other_num is None or other_num.value.denominator == 1:
            continue
        comma = _decimal_comma(this.expression)
        if comma is not None and this_num is None:
            verdict: Verdict = "equal" if comma == other_num.value else "different"
            return Equivalence(verdict, "decimal_comma", spelled(comma))
    return None


def ambiguous_thousands(a: AnswerForm, t: AnswerForm) -> Equivalence | None:
    t_num = number_of(t)
    reading = _thousands_or_decimal(a.expression)
    if reading is not None and t_num is not None and reading == t_num.value:
        return Equivalence(
            "ambiguous",
            "ambiguous",
            None,
            f"the answer {a.expression!r} is {a.expression.replace(',', '')} with a thousands"
            f" comma or {reading} with a decimal comma",
        )
    return None
