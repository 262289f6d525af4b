"""Read a maths answer as it is written (LaTeX or plain text) into the expression and what is
written around it: a unit, a percent or degree sign, a scale word. A comparison must respect
each of them; none is dropped silently. Also names forms that have two readings.

The rules, one sentence each:
- wrappers ($…$, \\(…\\), \\[…\\], \\boxed{…}), \\left/\\right and spacing commands carry no
  meaning, and "10,\\!000" and "10{,}000" are thousands separators;
- a unit is a word in \\text{}, \\mbox{}, \\textnormal{} or \\mathrm{} (two letters or more), or
  a plain word after the number ("km", "inches", "dollars"), with its ^2 or ^3;
- \\mathrm{e} and \\mathrm{i} are Euler's number and the imaginary unit, never units, and a
  letter written right after a number multiplies it ("2e", "2i", "2x");
- a scale word after a number ("thousand", "million", "万", "亿") multiplies it;
- a whole number right before a proper fraction is a mixed number (2\\frac{1}{2} = 5/2); before
  an improper fraction (2\\frac{3}{2}) it is ambiguous: 2 + 3/2 or 2 × 3/2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WRAPPERS = (
    re.compile(r"^\$\$(.*)\$\$$", re.DOTALL),
    re.compile(r"^\$(.*)\$$", re.DOTALL),
    re.compile(r"^\\\((.*)\\\)$", re.DOTALL),
    re.compile(r"^\\\[(.*)\\\]$", re.DOTALL),
    re.compile(r"^\\(?:boxed|fbox)\s*\{(.*)\}$", re.DOTALL),
    re.compile(r"^\\(?:text|textbf|textrm|textnormal|mbox|mathrm|mathbf)\s*\{(.*)\}$", re.DOTALL),
)
_FRAC_VARIANTS = re.compile(r"\\[dtc]frac\b")
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)\b\s*|\\displaystyle\b\s*")
_THOUSANDS_LATEX = re.compile(r"(?<=\d)(?:,\\!\s*|\{,\}|\\,)(?=\d{3}(?!\d))")
_SPACING = re.compile(r"(?<!\\)\\[!,;: ]|\\q?quad\b|~")
_CONSTANTS = re.compile(r"\\(?:mathrm|text|textrm|operatorname)\s*\{\s*([ei])\s*\}")
_CURRENCY = re.compile(r"^(?:\\\$|€|£|¥|\\euro\b)\s*|(?<=\d)\s*(?:\\\$|€|£|¥)$")
_DOLLAR = re.compile(r"^\$\s*(?=[\d.])|(?<=\d)\s*\$$")
"""A lone dollar sign before or after a number ("$18", "1,000.99$") is currency, not math."""
_DEGREES = re.compile(
    r"\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b|\\text\{\s*degrees?\s*\}|\s\s*degrees?)\s*$"
)
_PERCENT = re.compile(
    r"\s*(?:\\%|%|\\text\{\s*percent\s*\}|\s(?:percent(?:age)?|pct))\s*$", re.IGNORECASE
)
_POWER = r"(?:\s*\^\s*\{?\s*([23])\s*\}?)?"
_TEXT_WORD = re.compile(
    r"\s*\\(?:text|mbox|textnormal|textrm|mathrm|textit)\s*\{\s*([^{}]*?)\s*\}" + _POWER + r"\s*$"
)
_PLAIN_WORDS = re.compile(
    r"(?<=[\d}\s])\s*([A-Za-z]{2,}(?:[ \t]+[A-Za-z]{2,})*)" + _POWER + r"\s*$"
)
_UNIT_FOLLOWS = re.compile(r"[\d})\]]\s*$")
"""What a unit is written after: a number, or the end of a group ("\\frac{1}{3} \\text{m}")."""
_SPACED_LETTER = re.compile(r"(?<=\d)\s+([mgslh])" + _POWER + r"\s*$")
_CJK_SCALE = re.compile(r"(?<=\d)\s*([十百千万亿兆])\s*$")
_IMPROPER_MIXED = re.compile(r"(?<![\d.])(\d+)\s*\\frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")
_MIXED_ANY = re.compile(
    r"(?<![\d.])(\d+)\s*\\frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
)

SCALE_VALUES: dict[str, int] = {
    "hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
    "dozen": 12, "十": 10, "百": 100, "千": 10**3, "万": 10**4, "亿": 10**8, "兆": 10**12,
}  # fmt: skip
"""What a scale word after a number multiplies it by."""
SCALE_WORDS = frozenset(SCALE_VALUES) | {f"{word}s" for word in SCALE_VALUES if word.isascii()}


def scale_value(word: str) -> int:
    """The multiplier of a scale word ("millions" → 10**6), 1 for none."""
    return SCALE_VALUES.get(word.removesuffix("s") if word.isascii() else word, 1) if word else 1


_MATHS_WORDS = frozenset(
    {"pi", "sqrt", "sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "and", "or",
     "infinity", "inf", "mod", "pmod", "cdot", "times", "frac", "to", "i", "e", "is", "units"}
)  # fmt: skip


@dataclass(frozen=True)
class AnswerForm:
    """A maths answer split into the expression and what is written around it."""

    expression: str
    unit: str = ""
    percent: bool = False
    degrees: bool = False
    scale: str = ""
    ambiguity: str = ""
    """Non-empty when the form has two readings of different value: why."""


def _unwrap(s: str) -> str:
    previous = None
    while previous != s:
        previous = s
        s = s.strip().rstrip(".").strip()
        for pattern in _WRAPPERS:
            m = pattern.match(s)
            if m and _balanced(m.group(1)):
                s = m.group(1).strip()
    return s


def _balanced(s: str) -> bool:
    """Braces balanced and no math delimiter left inside ("$1$ and $2$" is no one wrapped span)."""
    if re.search(r"(?<!\\)\$", s):
        return False
    depth = 0
    for ch in s:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def unit_name(unit: str) -> str:
    """A unit in one spelling for comparing two units ("Inches^2" → "inch^2")."""
    word, _, power = unit.partition("^")
    word = " ".join(word.lower().replace(".", "").split())
    for name, exponent in (("square ", "2"), ("sq ", "2"), ("cubic ", "3"), ("cu ", "3")):
        if word.startswith(name) and not power:
            word, power = word[len(name) :], exponent
    word = _UNIT_ALIASES.get(word, word)
    if word.endswith("s") and len(word) > 3 and word[:-1] in _UNIT_ALIASES.values():
        word = word[:-1]
    return f"{word}^{power}" if power else word


_UNIT_ALIASES = {
    "meter": "m", "meters": "m", "metre": "m", "metres": "m",
    "centimeter": "cm", "centimeters": "cm", "centimetre": "cm", "centimetres": "cm",
    "millimeter": "mm", "millimeters": "mm", "kilometer": "km", "kilometers": "km",
    "kilometre": "km", "kilometres": "km", "inches": "inch", "in": "inch", "feet": "foot",
    "ft": "foot", "yards": "yard", "yd": "yard", "miles": "mile", "mi": "mile",
    "grams": "g", "gram": "g", "kilograms": "kg", "kilogram": "kg", "kgs": "kg",
    "pounds": "pound", "lbs": "pound", "lb": "pound", "ounces": "ounce", "oz": "ounce",
    "seconds": "s", "second": "s", "sec": "s", "secs": "s", "minutes": "min", "minute": "min",
    "mins": "min", "hours": "h", "hour": "h", "hr": "h", "hrs": "h", "days": "day",
    "weeks": "week", "months": "month", "years": "year", "liters": "l", "liter": "l",
    "litres": "l", "litre": "l", "milliliters": "ml", "millilitres": "ml", "dollars": "dollar",
    "cents": "cent", "sq": "square", "units": "unit",
}  # fmt: skip

_DIMENSIONS = {
    "length": {"mm", "cm", "m", "km", "inch", "foot", "yard", "mile"},
    "mass": {"mg", "g", "kg", "pound", "ounce", "ton", "tonne"},
    "time": {"s", "min", "h", "day", "week", "month", "year"},
    "volume": {"ml", "l", "gallon", "cup", "quart", "pint"},
}


def dimension(unit: str) -> str | None:
    """The quantity a unit of measure measures ("km" → "length"), None for other words."""
    word = unit_name(unit).partition("^")[0]
    return next((d for d, units in _DIMENSIONS.items() if word in units), None)


def units_named(text: str) -> set[str]:
    """Every unit of measure written in a text (a question), in `unit_name` spelling."""
    words = re.findall(r"[A-Za-z]+", text)
    return {unit_name(w) for w in words if dimension(w) is not None and len(w) > 1}


def _take_suffixes(s: str) -> tuple[str, str, bool, bool, str]:
    """(expression, unit, percent, degrees, scale) with the written suffixes taken off."""
    unit = scale = ""
    percent = degrees = False
    for _ in range(4):  # "5\text{ cm}^2 \text{ per year}": a few suffixes at most
        before = s
        if m := _DEGREES.search(s):
            degrees, s = True, s[: m.start()]
        elif m := _PERCENT.search(s):
            percent, s = True, s[: m.start()]
        elif (m := _TEXT_WORD.search(s)) and _UNIT_FOLLOWS.search(s[: m.start()]):
            word = m.group(1).strip()
            if word.lower() in SCALE_WORDS:
                scale = word.lower()
            elif word.lower() == "percent":
                percent = True
            elif word and not (len(word) == 1 and word in "ei"):
                unit = (
                    word + (f"^{m.group(2)}" if m.group(2) else "") + (f" {unit}" if unit else "")
                )
            else:
                break  # \mathrm{e}: a constant, part of the expression
            s = s[: m.start()]
        elif (m := _CJK_SCALE.search(s)) is not None:
            scale, s = m.group(1), s[: m.start()]
        elif (m := _PLAIN_WORDS.search(s)) and re.search(r"[\d}]", s[: m.start()]):
            words = m.group(1).split()
            if words[-1].lower() in SCALE_WORDS and len(words) == 1:
                scale, s = words[-1].lower(), s[: m.start()]
            elif any(w.lower() in _MATHS_WORDS for w in words):
                break
            else:
                if words[0].lower() in SCALE_WORDS:
                    scale, words = words[0].lower(), words[1:]
                unit = " ".join(words) + (f"^{m.group(2)}" if m.group(2) else "")
                s = s[: m.start()]
        elif m := _SPACED_LETTER.search(s):
            unit, s = m.group(1) + (f"^{m.group(2)}" if m.group(2) else ""), s[: m.start()]
        if s == before:
            break
    return s.strip(), unit, percent, degrees, scale


def _mixed_ambiguity(s: str) -> str:
    for m in _MIXED_ANY.finditer(s):
        num = int(m.group(2) or m.group(3))
        den = int(m.group(4) or m.group(5))
        if den and num >= den:
            return (
                f"{m.group(0)!r} has two readings: the whole number {m.group(1)} before an"
                f" improper fraction is {m.group(1)} + {num}/{den} or {m.group(1)} × {num}/{den}"
            )
    return ""


def _currency(s: str) -> str:
    s = _CURRENCY.sub("", s.strip())
    return _DOLLAR.sub("", s) if s.count("$") == 1 else s


def read_form(text: str) -> AnswerForm:
    """The answer `text` split into expression, unit, percent, degrees and scale."""
    s = _unwrap(text)
    s = _FRAC_VARIANTS.sub(r"\\frac", s)
    s = _SIZING.sub("", s)
    s = _THOUSANDS_LATEX.sub(",", s)
    s = _SPACING.sub(" ", s)
    s = _CONSTANTS.sub(r"\1", s)
    s = _currency(s)
    s, unit, percent, degrees, scale = _take_suffixes(s)
    s = _currency(_unwrap(s))
    return AnswerForm(s, unit, percent, degrees, scale, _mixed_ambiguity(s))


def canonical(expression: str) -> str:
    """An expression in one spelling for a plain comparison: spacing removed, except between two
    digits and after a comma ("2 1/2" and "32, 349" keep what tells them from 21/2 and 32349)."""
    s = " ".join(expression.split())
    s = re.sub(r"(?<![\d,]) | (?!\d)", "", s)
    return s
