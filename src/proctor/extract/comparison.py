"""Comparison answers: the symbols < > = and the words that say them, in English and Chinese.

A comparison written between two numbers ("5/11 is greater than 3/7") is read with its numbers,
so that a reply naming the operands in the other order than the question is not marked wrong
for it (`read_comparison` flips the symbol). "≤"/"≥" and their words are recognised, so that a
reply giving them is graded (wrong: the targets are strict), and negated words ("not equal",
"不等于") and "≠" are never read as an answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from proctor.extract.normalize import NUMBER_PATTERN, NumberToken, clean_text, find_numbers

_ENGLISH_WORDS: tuple[tuple[str, str], ...] = (
    (r"less\s+than\s+or\s+equal(?:\s+to)?", "≤"),
    (r"(?:greater|more)\s+than\s+or\s+equal(?:\s+to)?", "≥"),
    (r"(?:less|smaller|lower|fewer)\s+than", "<"),
    (r"(?:greater|larger|bigger|more|higher)\s+than", ">"),
    (r"equals?(?:\s+to)?|the\s+same\s+as", "="),
)
_CHINESE_WORDS: tuple[tuple[str, str], ...] = (
    (r"小于或等于|小于等于|不大于", "≤"),
    (r"大于或等于|大于等于|不小于", "≥"),
    (r"小于", "<"),
    (r"大于", ">"),
    (r"等于|相等|一样大", "="),
)
_SYMBOLS = {"<=": "≤", ">=": "≥", "≤": "≤", "≥": "≥", "<": "<", ">": ">", "==": "=", "=": "="}

_WORDS = _ENGLISH_WORDS + _CHINESE_WORDS
_ENGLISH = "|".join(f"(?:{pattern})" for pattern, _ in _ENGLISH_WORDS)
_CHINESE = "|".join(f"(?:{pattern})" for pattern, _ in _CHINESE_WORDS)
_COMPARISON = re.compile(
    rf"(?P<word>\b(?:{_ENGLISH})\b|{_CHINESE})|(?P<sym><=|>=|==|[≤≥<>=])", re.IGNORECASE
)
_NEGATED = re.compile(r"(?:\bnot|n't|\bno)\s*$|[不非]\s*$", re.IGNORECASE)
_LEFT = re.compile(rf"(?:{NUMBER_PATTERN})\s*(?:(?:is|are|was)\s+)?$", re.VERBOSE | re.IGNORECASE)
_RIGHT = re.compile(rf"\s*(?:(?:to|that\s+of)\s+)?(?:{NUMBER_PATTERN})", re.VERBOSE | re.I)


@dataclass(frozen=True)
class ComparisonToken:
    """One comparison found in cleaned text, with the numbers written on either side, if any."""

    symbol: str
    text: str
    raw: str
    start: int
    end: int
    left: NumberToken | None
    right: NumberToken | None

    @property
    def strict_word_or_symbol(self) -> bool:
        """True unless it is a bare "=" sign, which reasoning uses for every computation."""
        return self.raw not in ("=", "==")


def _symbol_of(match: re.Match[str]) -> str:
    if match.group("sym"):
        return _SYMBOLS[match.group("sym")]
    word = match.group("word")
    for pattern, symbol in _WORDS:
        if re.fullmatch(pattern, word, re.IGNORECASE):
            return symbol
    return "="  # unreachable: the word matched one of _WORDS


def find_comparisons(text: str) -> list[ComparisonToken]:
    """Every non-negated comparison in already-cleaned text, left to right."""
    found: list[ComparisonToken] = []
    for match in _COMPARISON.finditer(text):
        start, end = match.span()
        if _NEGATED.search(text[max(0, start - 6) : start]):
            continue
        left_match = _LEFT.search(text, max(0, start - 80), start)
        right_match = _RIGHT.match(text, end)
        left = right = None
        span_start, span_end = start, end
        if left_match:
            numbers = find_numbers(left_match.group())
            left = numbers[0][2] if numbers else None
            span_start = left_match.start()
        if right_match:
            numbers = find_numbers(right_match.group())
            right = numbers[-1][2] if numbers else None
            span_end = right_match.end()
        found.append(
            ComparisonToken(
                _symbol_of(match),
                text[span_start:span_end].strip(),
                match.group(),
                start,
                end,
                left,
                right,
            )
        )
    return found


def pick_comparison(text: str) -> ComparisonToken | None:
    """The first comparison word or < > symbol in `text`; a bare "=" only when there is none."""
    tokens = find_comparisons(text)
    strict = [token for token in tokens if token.strict_word_or_symbol]
    chosen = strict or tokens
    return chosen[0] if chosen else None


def read_comparison(value: str, operands: Sequence[Fraction] = ()) -> str | None:
    """The symbol an extracted comparison means, for the question's operands in their order.

    "5/11 > 3/7" for the question "Compare 3/7 and 5/11" means "<": when the numbers written on
    both sides are the two operands in reverse order, the symbol is flipped.
    """
    token = pick_comparison(clean_text(value))
    if token is None:
        return None
    if (
        len(operands) == 2
        and token.left is not None
        and token.right is not None
        and (token.left.value, token.right.value) == (operands[1], operands[0])
        and operands[0] != operands[1]
    ):
        return {"<": ">", ">": "<", "≤": "≥", "≥": "≤"}.get(token.symbol, token.symbol)
    return token.symbol
