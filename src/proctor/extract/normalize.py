"""Text normalisation and exact number parsing for answer extraction.

Decisions, stated once:
- Characters: NFKC (full-width digits, colon, comma, parentheses, percent → ASCII), and every
  minus look-alike (U+2212, U+FE63, U+FF0D, and the dashes U+2012–U+2015 when written right before
  a digit) → "-". A full-width comma "，" therefore becomes "," like any other comma.
- Thousands separators: "," only in valid 3-digit groups after a first group that does not
  start with 0 ("1,234", "1,234,567.5"; "1,23" is the two numbers 1 and 23, "0,111" is 0 and
  111). No-break, figure, thin and narrow spaces between 3-digit groups
  ("1 234" written with U+202F) and LaTeX "\\," / "{,}" are separators too. A plain space is NOT:
  "1 234" is the two numbers 1 and 234, because replies list numbers separated by spaces.
- No decimal comma: "12,5" is the numbers 12 and 5.
- Mixed numbers: a whole number written right before a proper fraction is their sum, as a
  mathematician writes it: "2½", "2 1/2", "2\\frac{1}{2}" are 5/2 (kind "mixed"), never 21/2
  nor 2 × 1/2. A fraction may be spaced: "11 / 12" is 11/12.
- A number glued to π, √, ∞ or a Greek letter ("2π", "√2", "3θ") is not a plain number.
- Percent: "50%" is read as 50/100 and marked `percent=True`; the scorer counts an answer that is
  equal only through the percent sign as a format miss, never as correct.
- Decoration is stripped: markdown bold/italic/code ("**42**", "*42*", "`42`"), "$…$", "\\(…\\)",
  "\\boxed{…}", "\\text{…}", and "\\frac{3}{4}" → "3/4".
- A sign belongs to a number only when it touches the digit and does not follow a word, a digit
  or a closing bracket: "-5", "= -5", "(-5)" are negative; "10 - 5" and "10-5" are subtractions.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

NumberKind = Literal["integer", "decimal", "fraction", "mixed"]

_GROUP_SPACES = "\u00a0\u2007\u2009\u202f"
_SPACED_GROUPS = re.compile(rf"(?<![\d.])\d{{1,3}}(?:[{_GROUP_SPACES}]\d{{3}})+(?!\d)")
_MINUS_LOOKALIKES = str.maketrans({"\u2212": "-", "\ufe63": "-", "\uff0d": "-", "\u2044": "/"})
_DASH_AS_SIGN = re.compile(r"[\u2012-\u2015](?=\d)")
_GROUP_SPACE = re.compile(f"[{_GROUP_SPACES}]")
_VULGAR_AFTER_DIGIT = re.compile("(?<=\\d)(?=[\u00bc-\u00be\u2150-\u215e])")
"""Where "2½" needs a space so that NFKC's "1⁄2" cannot join the whole number: "2 1/2"."""


def normalize_text(text: str) -> str:
    """NFKC, minus look-alikes → "-", and spaced thousands groups → comma groups."""
    # Every step reads or writes only non-ASCII characters, and NFKC leaves ASCII as it is.
    return text if text.isascii() else _normalize_unicode(text)


@lru_cache(maxsize=64)
def _normalize_unicode(text: str) -> str:
    # Cached: grading normalises the same reply twice (the violation check, then extraction).
    if _GROUP_SPACE.search(text):
        text = _SPACED_GROUPS.sub(lambda m: _GROUP_SPACE.sub(",", m.group()), text)
    text = _VULGAR_AFTER_DIGIT.sub(" ", text)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_MINUS_LOOKALIKES)
    return _DASH_AS_SIGN.sub("-", text)


_FRAC = re.compile(r"(?:(?<=\d)[ \t]*)?\\[dtc]?frac\s*\{\s*([^{}]*?)\s*\}\s*\{\s*([^{}]*?)\s*\}")
_FRAC_SHORT = re.compile(r"(?:(?<=\d)[ \t]*)?\\[dtc]?frac\s*(\d)(\d)")


def _fraction(match: re.Match[str]) -> str:
    """ "\\frac{3}{4}" → "3/4"; right after a digit "2\\frac{1}{2}" → "2 1/2", a mixed number."""
    start = match.start()
    after_digit = start > 0 and match.string[start - 1].isdigit()
    return f"{' ' if after_digit else ''}{match.group(1)}/{match.group(2)}"


_UNWRAP = re.compile(
    r"\\(?:boxed|fbox|text|textbf|textrm|mathbf|mathrm|mathit|displaystyle|underline)\s*\{([^{}]*)\}"
)
# (text every match contains, pattern, replacement), applied in this order.
_LATEX_SYMBOLS = (
    ("\\times", re.compile(r"\\times\b"), "×"),
    ("\\div", re.compile(r"\\div\b"), "÷"),
    ("\\cdot", re.compile(r"\\cdot\b"), "·"),
    ("\\approx", re.compile(r"\\approx\b"), "≈"),
    ("\\le", re.compile(r"\\(?:leq?|leqslant)\b"), "≤"),
    ("\\ge", re.compile(r"\\(?:geq?|geqslant)\b"), "≥"),
    ("\\ne", re.compile(r"\\(?:neq?)\b"), "≠"),
    ("\\lt", re.compile(r"\\lt\b"), "<"),
    ("\\gt", re.compile(r"\\gt\b"), ">"),
    ("&lt;", re.compile(r"&lt;"), "<"),
    ("&gt;", re.compile(r"&gt;"), ">"),
    ("\\%", re.compile(r"\\%"), "%"),
    ("{,}", re.compile(r"\{,\}"), ","),
    ("\\,", re.compile(r"(?<=\d)\\,(?=\d{3}(?!\d))"), ","),
    ("\\", re.compile(r"\\(?:left|right|displaystyle)\b"), ""),
    ("\\", re.compile(r"\\[()\[\]]"), " "),
    ("\\", re.compile(r"\\[,;:! ]"), " "),
)
_MARKDOWN_EMPHASIS = re.compile(r"\*\*|__|`")
_SINGLE_STAR = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])")
DECORATION = re.compile(r"[\\&{$*_`]")
"""A character every decoration pattern below contains: text without one is left as it is."""


def strip_decoration(text: str) -> str:
    """Remove markdown and LaTeX wrapping around answers; turn LaTeX fractions into "p/q"."""
    if DECORATION.search(text) is None:
        return text
    # Each step runs only when the text (as it is by then) holds what every match contains:
    # a step that cannot match would leave the text unchanged anyway.
    if "frac" in text:
        text = _FRAC.sub(_fraction, text)
        text = _FRAC_SHORT.sub(_fraction, text)
    if "\\" in text and "{" in text:
        previous = None
        while previous != text:
            previous, text = text, _UNWRAP.sub(r"\1", text)
    for needle, pattern, replacement in _LATEX_SYMBOLS:
        if needle in text:
            text = pattern.sub(replacement, text)
    text = text.replace("$", "")
    if "**" in text or "__" in text or "`" in text:
        text = _MARKDOWN_EMPHASIS.sub("", text)
    return _SINGLE_STAR.sub(r"\1", text) if "*" in text else text


def clean_text(text: str) -> str:
    """`normalize_text` then `strip_decoration`: the text every extraction rule reads."""
    return strip_decoration(normalize_text(text))


NUMBER_PATTERN = r"""
    (?<![A-Za-z0-9_.)\]/√\u0370-\u03ff])
    (?P<sign>[-+](?=[\d.]))?
    (?>
        (?P<num>\d++)[ ]?/[ ]?(?P<den>\d++)(?![\d/]|\.\d)
      | (?P<int>(?>[1-9]\d{0,2}(?:,\d{3})+(?!\d)|\d++))(?:\.(?P<frac>\d++))?
      | \.(?P<bare_frac>\d++)
    )
    (?P<pct>[ ]?%)?
    (?![A-Za-z_π√∞\u0370-\u03ff])
"""
"""A number token on cleaned text: integer, decimal, fraction "p/q", optional sign and percent.
The number is one atomic group: "2.5m" is no number (digits run into letters), never the 2 of it."""

_NUMBER = re.compile(NUMBER_PATTERN, re.VERBOSE)


@dataclass(frozen=True)
class NumberToken:
    """A number as written in a reply, and its exact value.

    `decimals` counts the digits written after the decimal point (plus 2 for a percent);
    `reduced` is False only for a fraction not in lowest terms ("6/8").
    """

    text: str
    value: Fraction
    kind: NumberKind
    decimals: int = 0
    percent: bool = False
    reduced: bool = True

    @property
    def canonical(self) -> str:
        """The value in one spelling: "1234", "-1/2" for fractions, "12.5" for decimals."""
        value = self.value
        if value.denominator == 1:
            return str(value.numerator)
        if self.kind in ("fraction", "mixed"):
            return f"{value.numerator}/{value.denominator}"
        return decimal_string(value) or f"{value.numerator}/{value.denominator}"


def natural_places(value: Fraction) -> int | None:
    """The fewest digits after the point that write `value` exactly; None if no finite number
    of digits does (the denominator has a prime factor other than 2 and 5)."""
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else None


def decimal_string(value: Fraction) -> str | None:
    """The shortest exact decimal spelling of `value`, or None when it does not terminate."""
    places = natural_places(value)
    if places is None:
        return None
    scaled = abs(value.numerator) * 10**places // value.denominator
    digits = str(scaled).rjust(places + 1, "0")
    whole, frac = digits[: len(digits) - places], digits[len(digits) - places :].rstrip("0")
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


_TOKENS: dict[str, NumberToken | None] = {}
_TOKENS_MAX = 8192


def _token(match: re.Match[str]) -> NumberToken | None:
    # The groups, and so the token, are a function of the matched text alone ("/" means a
    # fraction, a leading "." a bare decimal, …), so tokens are cached by it: a reply's answer
    # is read again as the target, and the same numbers recur across a run.
    written = match.group()
    try:
        return _TOKENS[written]
    except KeyError:
        pass
    token = _read_token(match)
    if len(_TOKENS) >= _TOKENS_MAX:
        _TOKENS.clear()
    _TOKENS[written] = token
    return token


MAX_DIGITS = 1000
"""A number written with more digits than this is not read (no answer has so many, and Python
refuses to convert one of more than 4,300 digits: a reply must not be able to crash grading)."""


def _read_token(match: re.Match[str]) -> NumberToken | None:
    sign, pct, num_text, den_text, int_text, frac, bare_frac = match.group(
        "sign", "pct", "num", "den", "int", "frac", "bare_frac"
    )
    if match.end() - match.start() > MAX_DIGITS + 8:
        return None
    kind: NumberKind
    if den_text is not None:
        num, den = int(num_text), int(den_text)
        if den == 0:
            return None
        value, kind, decimals = Fraction(num, den), "fraction", 0
        reduced = value.numerator == num
    else:
        whole = (int_text or "0").replace(",", "")
        frac = frac or bare_frac
        if frac is None:
            value, kind, decimals = Fraction(int(whole)), "integer", 0
        else:
            # The exact value of "<whole>.<frac>", computed as Fraction(str) does it, without
            # the cost of parsing a decimal string.
            scale = 10 ** len(frac)
            value, kind = Fraction(int(whole) * scale + int(frac), scale), "decimal"
            decimals = len(frac)
        reduced = True
    if sign == "-":
        value = -value
    percent = pct is not None
    if percent:
        value, kind, decimals = value / 100, "decimal", decimals + 2
    return NumberToken(match.group().strip(), value, kind, decimals, percent, reduced)


def _mixed(whole: NumberToken, part: NumberToken) -> NumberToken | None:
    """ "2" and "1/2" written "2 1/2": the mixed number 5/2, when the fraction is proper."""
    if whole.kind != "integer" or whole.percent or part.kind != "fraction" or part.percent:
        return None
    if part.text[0] in "+-" or not 0 < part.value < 1:
        return None
    value = whole.value - part.value if whole.text.startswith("-") else whole.value + part.value
    return NumberToken(f"{whole.text} {part.text}", value, "mixed", 0, False, part.reduced)


def find_numbers(text: str) -> list[tuple[int, int, NumberToken]]:
    """Every number token in already-cleaned text, left to right, with its span; a whole number
    and a proper fraction separated by one space are one mixed number."""
    found: list[tuple[int, int, NumberToken]] = []
    for match in _NUMBER.finditer(text):
        token = _token(match)
        if token is None:
            continue
        start, end = match.start(), match.end()
        if found and found[-1][1] + 1 == start and text[start - 1] == " ":
            mixed = _mixed(found[-1][2], token)
            if mixed is not None:
                found[-1] = (found[-1][0], end, mixed)
                continue
        found.append((start, end, token))
    return found


@lru_cache(maxsize=4096)
def parse_number(text: str) -> NumberToken | None:
    """Read `text` as exactly one number (after normalisation and decoration), else None."""
    # Cached: a token is immutable, and grading reads the same strings again and again (a
    # sample's target and operands, an answer that is also the target).
    cleaned = clean_text(text).strip()
    match = _NUMBER.fullmatch(cleaned)
    if match:
        return _token(match)
    found = find_numbers(cleaned) if " " in cleaned else []
    if len(found) == 1 and found[0][:2] == (0, len(cleaned)) and found[0][2].kind == "mixed":
        return found[0][2]
    return None
