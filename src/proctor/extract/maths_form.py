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
- a scale word after a number ("thousand", "million", "万", "万亿") multiplies it; 兆 has two
  values (10⁶ or 10¹²), so a form that uses it is ambiguous;
- which words are units, scale words, percent or degrees, and which units are one, is the unit
  table's (`extract.units`); this module only finds where they are written;
- LaTeX as models mistype it (`\\sqrt(2)`, `\\frac(1)(2)`) is read as meant, and a form that
  cannot be (unbalanced, an empty argument, a command LaTeX lacks) is named malformed
  (`extract.maths_latex`);
- a whole number right before a proper fraction is a mixed number (2\\frac{1}{2} = 5/2); before
  an improper fraction (2\\frac{3}{2}) it is ambiguous: 2 + 3/2 or 2 × 3/2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proctor.extract.maths_latex import as_meant, malformed
from proctor.extract.scales import AMBIGUOUS_SCALES, CN_SCALE_RUN, scale_named
from proctor.extract.units import CURRENCY_PREFIXES, DEGREES, PERCENT, Unit, unit_at, unit_named

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
_MONEY_MARKS = {m: u for m, u in CURRENCY_PREFIXES if m in ("$", "€", "£", "¥")}
"""Money marks a maths answer writes before or after its number, read by the unit table."""
_DOLLAR = re.compile(r"^\$\s*(?=[\d.])|(?<=\d)\s*\$$")
"""A lone dollar sign before or after a number ("$18", "1,000.99$") is currency, not math."""
_DEGREE_SIGN = r"(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b)"
_DEGREES = re.compile(r"\s*" + _DEGREE_SIGN + r"\s*$")
"""The degree sign as LaTeX writes it; "degrees" in words is the unit table's (`DEGREES`)."""
_TEMPERATURE = re.compile(
    r"\s*(?:"
    + _DEGREE_SIGN
    + r"\s*(?:\\(?:text|mathrm|textrm)\s*\{\s*([CF])\s*\}|([CF]))|([℃℉]))\s*$"
)
"""A degree sign with C or F: a temperature, the unit table's °C or °F ("90^\\circ\\text{C}")."""
_PERCENT = re.compile(r"\s*(?:\\%|%)\s*$")
"""The percent sign; "percent", "pct" in words are the unit table's (`PERCENT`)."""
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
"""Of the letters the unit table knows, those a maths answer writes as a unit after a number
and a space ("5 m", "3 s", "2 h"); any other letter there is a variable ("2 t", "3 x")."""
_CJK_SCALE = re.compile(
    r"(?<=\d)\s*(" + CN_SCALE_RUN + "|[十百千]|" + "|".join(AMBIGUOUS_SCALES) + r")\s*$"
)
"""One Chinese scale after digits; a run that is no one scale ("5亿万") is left unread."""
_CJK_UNIT = re.compile(r"(?<=[\d})\s])\s*([\u3400-\u9fff]{1,4})\s*$")
"""A Chinese unit after a number or a group ("(\\frac{2}{5}) 吨", "12 千克"), when the unit table
knows it."""
_IMPROPER_MIXED = re.compile(r"(?<![\d.])(\d+)\s*\\frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")
_MIXED_ANY = re.compile(
    r"(?<![\d.])(\d+)\s*\\frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
)

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
    malformed: str = ""
    """Non-empty when the expression is LaTeX that cannot be read as meant
    (`extract.maths_latex`): why."""


_TRAILING_STOP = re.compile(r"(?<![,\s.])\.+$")
"""A full stop after the answer ("5." or "5..."), not an ellipsis that ends a list ("1, 3, ...")."""


def _unwrap(s: str) -> str:
    previous = None
    while previous != s:
        previous = s
        s = _TRAILING_STOP.sub("", s.strip()).strip()
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


def form_unit(unit: str) -> Unit | None:
    """The unit table's unit that a written unit names ("Inches^2" → square inch, "sq ft",
    "hrs."), None for a word the table does not know ("apples", "square units")."""
    if unit in _MONEY_MARKS:
        return _MONEY_MARKS[unit]
    for spelling in (unit, unit.rstrip("."), unit.lower()):
        found = unit_named(spelling)
        if found is not None:
            return found
    return None


_WORD_START = re.compile(r"(?<![A-Za-z])[A-Za-z]|[\u3400-\u9fff]")


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def units_named(text: str) -> list[Unit]:
    """Every unit written in a text (a question) as a word or a symbol of two letters or more
    ("meters", "sq ft", "km", "平方米"; not "m" or "in", which are prose as often as units), and
    the one a word inside a longer spelling names ("miles" in "miles per hour")."""
    found: list[Unit] = []
    for m in _WORD_START.finditer(text):
        hit = unit_at(text, m.start())
        word = _LATIN_WORD.match(text, m.start())
        inner = unit_at(text, m.start(), word.end()) if word is not None else None
        for unit_hit in (hit, inner):
            if unit_hit is not None and unit_hit[1] - m.start() > 1 and unit_hit[0] not in found:
                found.append(unit_hit[0])
    return found


def _classified(word: str, power: str, unit: str) -> tuple[str, str, bool, bool]:
    """(scale, unit, percent, degrees) that a written word means, by the unit table."""
    if scale_named(word) is not None and not power:
        return word.lower(), unit, False, False
    named = form_unit(word)
    if named is PERCENT and not power:
        return "", unit, True, False
    if named is DEGREES and not power:
        return "", unit, False, True
    written = word + (f"^{power}" if power else "") + (f" {unit}" if unit else "")
    return "", written, False, False


def _take_suffixes(s: str) -> tuple[str, str, bool, bool, str]:
    """(expression, unit, percent, degrees, scale) with the written suffixes taken off."""
    unit = scale = ""
    percent = degrees = False
    for _ in range(4):  # "5\text{ cm}^2 \text{ per year}": a few suffixes at most
        before = s
        if m := _TEMPERATURE.search(s):
            letter = m.group(1) or m.group(2)
            unit = f"°{letter}" if letter else m.group(3)
            degrees, s = True, s[: m.start()]
        elif m := _DEGREES.search(s):
            degrees, s = True, s[: m.start()]
        elif m := _PERCENT.search(s):
            percent, s = True, s[: m.start()]
        elif (m := _TEXT_WORD.search(s)) and _UNIT_FOLLOWS.search(s[: m.start()]):
            word = m.group(1).strip()
            if not word or (len(word) == 1 and word in "ei"):
                break  # \mathrm{e}: a constant, part of the expression
            said = _classified(word, m.group(2) or "", unit)
            scale, unit = said[0] or scale, said[1]
            percent, degrees = percent or said[2], degrees or said[3]
            s = s[: m.start()]
        elif (m := _CJK_SCALE.search(s)) is not None:
            scale, s = m.group(1), s[: m.start()]
        elif (m := _CJK_UNIT.search(s)) is not None and form_unit(m.group(1)) is not None:
            unit, s = m.group(1), s[: m.start()]
        elif (m := _PLAIN_WORDS.search(s)) and re.search(r"[\d}]", s[: m.start()]):
            words = m.group(1).split()
            if any(w.lower() in _MATHS_WORDS for w in words):
                break
            if len(words) > 1 and scale_named(words[0]) is not None:
                scale, words = words[0].lower(), words[1:]  # "5 million dollars"
            said = _classified(" ".join(words), m.group(2) or "", "")
            scale, unit = said[0] or scale, said[1] or unit
            percent, degrees = percent or said[2], degrees or said[3]
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


def _currency(s: str) -> tuple[str, str]:
    """`s` without its money mark, and the mark ("$", "€", "£", "¥"; "" for none)."""
    s = s.strip()
    marks = [m.group().strip().lstrip("\\") for m in _CURRENCY.finditer(s)]
    s = _CURRENCY.sub("", s)
    if s.count("$") == 1 and _DOLLAR.search(s):
        s, marks = _DOLLAR.sub("", s), [*marks, "$"]
    return s, next((m for m in marks if m in _MONEY_MARKS), "")


def read_form(text: str) -> AnswerForm:
    """The answer `text` split into expression, unit, percent, degrees and scale."""
    s = _unwrap(text)
    s = _FRAC_VARIANTS.sub(r"\\frac", s)
    s = as_meant(_SIZING.sub("", s))
    s = _THOUSANDS_LATEX.sub(",", s)
    s = _SPACING.sub(" ", s)
    s = _CONSTANTS.sub(r"\1", s)
    s, mark = _currency(s)
    s, unit, percent, degrees, scale = _take_suffixes(s)
    s, inner_mark = _currency(_unwrap(s))
    unit = unit or mark or inner_mark  # "\\$5" is 5 dollars: a unit like "5 dollars"
    two_scales = next((why for ch, why in AMBIGUOUS_SCALES.items() if ch in scale), "")
    ambiguity = two_scales or _mixed_ambiguity(s)
    return AnswerForm(s, unit, percent, degrees, scale, ambiguity, malformed(s) if s else "")


def canonical(expression: str) -> str:
    """An expression in one spelling for a plain comparison: spacing removed, except between two
    digits and after a comma ("2 1/2" and "32, 349" keep what tells them from 21/2 and 32349)."""
    s = " ".join(expression.split())
    s = re.sub(r"(?<![\d,]) | (?!\d)", "", s)
    return s


_ELLIPSIS = re.compile(r"\\(?:ldots|dots[cbmio]?|cdots|mathellipsis)\b|…|\.\.\.")
_OPENERS, _CLOSERS = "{([", "})]"


def _top_level_split(expression: str, sep: str) -> list[str]:
    """`expression` split at the `sep` characters outside braces, brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(expression):
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(expression[start:i])
            start = i + 1
    parts.append(expression[start:])
    return [p.strip() for p in parts]


@dataclass(frozen=True)
class Structure:
    """A sequence ("1, 3, 5, \\ldots, 2n-1") or a ratio chain ("1:4:9", "1:4:9:\\ldots"):
    several terms, compared term by term, never one number. An ellipsis is a term "…"."""

    kind: str  # "sequence" or "ratio"
    terms: tuple[str, ...]


def structure(expression: str) -> Structure | None:
    """The sequence or ratio chain an expression writes, or None: a list with an ellipsis among
    its comma-separated terms is a sequence, two colons or more (or one and an ellipsis) a ratio
    chain; a sum or product with \\cdots ("1+2+\\cdots+n") and a plain list are neither. Of an
    equation ("V_1:V_2 = 11:21"), the value after its last "=" is read."""
    text = _ELLIPSIS.sub(" … ", expression.rpartition("=")[2]).strip()
    for kind, sep in (("ratio", ":"), ("sequence", ",")):
        parts = _top_level_split(text, sep)
        terms: list[str] = []
        for part in parts:
            # "5 \ldots" without a comma before it: the ellipsis is a term of its own
            pieces = [p.strip() for p in re.split(r"(…)", part)]
            terms += [p for p in pieces if p] or [part]
        has_ellipsis = "…" in terms
        if kind == "ratio" and (len(parts) >= 3 or (len(parts) == 2 and has_ellipsis)):
            return Structure(kind, tuple(terms))
        if kind == "sequence" and len(parts) >= 2 and has_ellipsis:
            return Structure(kind, tuple(terms))
    return None


_GROUP_JOIN = re.compile(
    r"\s*(?:;|\\text\s*\{\s*(?:and|or)\s*\}|\\(?:lor|vee)\b|\b(?:and|or)\b)\s*", re.IGNORECASE
)
_ASSIGNED = re.compile(r"\s*([A-Za-z](?:_\{?\w+\}?)?)\s*=\s*([^=]+?)\s*")


def solution_groups(expression: str) -> tuple[tuple[tuple[str, str], ...], ...] | None:
    """The solutions an expression lists as assignments: "x = 3 or x = 5" is ((x, 3),), ((x, 5),)
    and "p=5,q=2;p=7,q=2" or "p=5,q=2 \\\\text{ and } p=7,q=2" is two groups of two; None unless
    every piece is "variable = value" (a hedge between plain values, "3 or 5", is not a list)."""
    if "=" not in expression:
        return None
    groups: list[tuple[tuple[str, str], ...]] = []
    for part in _GROUP_JOIN.split(expression.strip()):
        pieces = _top_level_split(part, ",")
        assigned = [_ASSIGNED.fullmatch(p) for p in pieces]
        if not pieces or not all(assigned):
            return None
        group = tuple((m.group(1), m.group(2)) for m in assigned if m)
        if len(group) > 1 and len({name for name, _ in group}) == 1:
            groups += [(pair,) for pair in group]  # "p=-1, p=15/8": one variable's solutions
        else:
            groups.append(group)
    return tuple(groups)
