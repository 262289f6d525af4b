"""The stub's arithmetic: find the question in a prompt and write its exact answer.

Only for the stub: it reads the wording of `proctor.prompts.arithmetic` and the generator's
question forms, and answers in the form the prompt asks for, so a run against the stub in
"correct" mode scores 100 %."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from proctor.datasets.answers import (
    comparison_target,
    decimal_target,
    fraction_target,
    natural_places,
)
from proctor.datasets.exact_eval import evaluate

__all__ = ["find_question", "off_by_one", "solve"]

_MARKERS = ("Problem:", "题目：")
_COMPARE = re.compile(r"Compare\s+(\S+)\s+and\s+(\S+?)\s*:")
_QUOTIENT = re.compile(r"\s*\(integer quotient, rounded down\)")
_REMAINDER = re.compile(r"\s*\(remainder of [^()]*\)")
_ROUND = re.compile(r"\s*\(round to (\d+) decimal places?\)")
_FRACTION = re.compile(r"(?<![\d.)])(\d+)/(\d+)(?![\d.(])")
_PLACES_HINT = re.compile(r"with (\d+) decimal places|保留\s*(\d+)\s*位小数")
_FRACTION_HINT = re.compile(r"as a fraction|最简分数")
_INTEGER_HINT = re.compile(r"as an integer|写成整数")


def find_question(prompt: str) -> str:
    """The question of an arithmetic prompt: after its last "Problem:" / "题目：" marker (variant
    B), else its last paragraph (variant A)."""
    for marker in _MARKERS:
        at = prompt.rfind(marker)
        if at >= 0:
            return prompt[at + len(marker) :].strip()
    return prompt.strip().rsplit("\n\n", 1)[-1].strip()


@lru_cache(maxsize=65536)
def solve(prompt: str) -> str | None:
    """The exact answer the prompt's question asks for, written as its target would be, or None
    when no question this stub understands is found."""
    question = find_question(prompt)
    compared = _COMPARE.search(question)
    try:
        if compared:
            left, right = (evaluate(_canonical(side)) for side in compared.groups())
            return comparison_target(left, right)
        rounded = _ROUND.search(question)
        value = evaluate(_canonical(question))
    except ValueError:
        return None
    places = int(rounded.group(1)) if rounded else _hinted_places(prompt)
    return _written(value, places, prompt)


def off_by_one(answer: str) -> str:
    """A wrong answer close to `answer`: a comparison's next symbol, else the value plus one,
    written the same way."""
    if answer in ("<", ">", "="):
        return {"<": ">", ">": "=", "=": "<"}[answer]
    if "/" in answer:
        num, den = answer.split("/", 1)
        return fraction_target(Fraction(int(num), int(den)) + 1)[0]
    if "." in answer:
        return decimal_target(Fraction(answer) + 1, len(answer.split(".", 1)[1]))
    return str(int(answer) + 1)


def _canonical(question: str) -> str:
    """The question as an ASCII expression `exact_eval.evaluate` reads."""
    text = _ROUND.sub("", question)
    if _QUOTIENT.search(text):
        text = _QUOTIENT.sub("", text).replace("÷", "//")
    if " mod " in text:
        text = _REMAINDER.sub("", text).replace(" mod ", " % ")
    text = _FRACTION.sub(r"(\1/\2)", text)  # "a/b ÷ c/d" is (a/b) / (c/d), not a/b/c/d
    return text.replace("×", "*").replace("÷", "/").replace("−", "-").rstrip("?=. ")


def _hinted_places(prompt: str) -> int | None:
    found = _PLACES_HINT.search(prompt)
    if found is None:
        return None
    return int(found.group(1) or found.group(2))


def _written(value: Fraction, places: int | None, prompt: str) -> str:
    if places is not None:
        return decimal_target(value, places)
    if _FRACTION_HINT.search(prompt) or _INTEGER_HINT.search(prompt):
        return fraction_target(value)[0]
    if value.denominator == 1:
        return str(value.numerator)
    natural = natural_places(value)
    return decimal_target(value, natural) if natural is not None else fraction_target(value)[0]
