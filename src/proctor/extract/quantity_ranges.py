"""Ranges and years among the numbers the quantity reader found (`extract.quantities`): two
numbers joined by a dash, "to", "between … and", "±", 至/到 or 和…之间 are one range (a unit or
scale after the high end applies to the low end too; "from 10 to 14" is a change, two numbers;
a hyphen between a higher and a lower number is ambiguous); a plain number 1000–2999 after a
year word ("in 2019") is a date, and so is "1990-2000".
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from proctor.extract.quantity_atoms import Atom

_YEAR_WORDS = re.compile(
    r"(?i)(?<![A-Za-z])(?:in|since|until|till|during|before|after|by|from|of|year|fiscal|fy|"
    r"through|as of|early|mid|late|end of|start of)[ \t]+$"
)
_RANGE_GAP = re.compile(r"[ \t]*(?:[–—~]|(?i:to)|至|到)[ \t]*|-")


def join_ranges(t: str, numbers: list[Atom]) -> list[Atom]:
    out: list[Atom] = []
    i = 0
    while i < len(numbers):
        a = numbers[i]
        b = numbers[i + 1] if i + 1 < len(numbers) else None
        joined = _range(t, a, b) if b is not None else None
        if joined is not None:
            out.append(joined)
            i += 2
            continue
        out.append(a)
        i += 1
    for n in out:
        if (
            n.kind == "number"
            and n.plain
            and n.unit is None
            and n.scale == 1
            and n.high is None
            and 1000 <= n.value <= 2999
            and _YEAR_WORDS.search(t[max(0, n.start - 12) : n.start])
        ):
            n.kind = "date"
    return out


def _range(t: str, a: Atom, b: Atom) -> Atom | None:
    if a.kind != "number" or b.kind != "number" or a.high is not None or b.high is not None:
        return None
    gap = t[a.end : b.start]
    between = a.between_at >= 0 and re.fullmatch(r"[ \t]*(?i:and)[ \t]*|[ \t]*[和与][ \t]*", gap)
    chinese_between = re.fullmatch(r"[ \t]*[和与到至][ \t]*", gap) and t.startswith("之间", b.end)
    plus_minus = re.fullmatch(r"[ \t]*±[ \t]*", gap)
    connector = _RANGE_GAP.fullmatch(gap)
    if not (between or chinese_between or plus_minus or connector):
        return None
    if a.after_from and not between:
        if a.unit is None and a.scale == 1 and b.scale != 1 and connector:
            a.value, a.step, a.scale, a.unit = a.value * b.scale, a.step * b.scale, b.scale, b.unit
        return None  # "from 10.5 to 14.0 million": a change, two numbers (the scale is shared)
    if b.signed and gap.strip() in ("-", ""):
        return None
    low, high = replace(a), replace(b)
    if plus_minus:
        if low.unit is None and high.unit is not None:
            low.unit = high.unit
        return _merged(low, high, low.value - high.value, low.value + high.value, "")
    # A unit or scale written after the high end only applies to the low end too.
    if low.scale == 1 and high.scale != 1 and (low.unit is None or low.money):
        low.value, low.step, low.scale = low.value * high.scale, low.step * high.scale, high.scale
    if low.unit is None:
        low.unit = high.unit
    if high.unit is None and low.unit is not None and low.money:
        high.unit = low.unit
    if (low.unit is None) != (high.unit is None) or (
        low.unit is not None and high.unit is not None and low.unit.key != high.unit.key
    ):
        return None
    if low.value >= high.value:
        if gap == "-":
            amb = _merged(low, high, low.value, high.value, "")
            amb.kind, amb.reason = "ambiguous", "a hyphen between a higher and a lower number "
            amb.reason += "(a subtraction, a score or a range?)"
            return amb
        return None
    if gap == "-" and low.plain and high.plain and 1900 <= low.value <= 2100 >= high.value:
        merged = _merged(low, high, low.value, high.value, "")
        merged.kind = "date"
        return merged
    merged = _merged(low, high, low.value, high.value, "")
    if between:
        merged.start = a.between_at
    return merged


def _merged(a: Atom, b: Atom, low: Fraction, high: Fraction, hedge: str) -> Atom:
    return Atom(
        a.start, b.end, low, min(a.step, b.step), high, words=a.words and b.words,
        scale=b.scale, unit=a.unit or b.unit, hedge=a.hedge or b.hedge or hedge,
        bound=a.bound or b.bound, unknown=b.unknown, money=a.money or b.money,
    )  # fmt: skip
