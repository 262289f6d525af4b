"""A short free-text answer read as one quantity and compared with an item's expected value, unit
and tolerance; every verdict says which rule decided it and why.

Who uses what:
- `read_answer(text)`: an answer field ("About 180,000 tonnes (USGS estimate).") as exactly one
  quantity, or the reason it is not one (no number, several different values, ambiguous).
- `expected_quantity(value, unit, tolerance, rel_tolerance)`: an item's contract ("1260582" in
  "亿元"); `unit_asked(question)`: the unit a question states explicitly ("…, in tonnes?",
  "…是多少亿元？"), for items that state no unit themselves.
- `match_quantity(found, expected)` → `QuantityMatch(verdict, rule, reason)`; `grade_answer`
  does all three for one answer text.
- `compare_quantities(first, second)`: whether two quantities read from texts state the same
  value (a fact said twice in a dialogue, a number in a summary against the material):
  "same", "different" or "unknown" (not comparable: another dimension without a factor, an
  ambiguous unit), with the reason.

The rules (`QUANTITY_RULES`), each one sentence; a verdict names its rule in brackets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from proctor.extract.quantities import Quantity, find_quantities, show
from proctor.extract.scales import SCALE_WORDS
from proctor.extract.units import PERCENT, POINT, Unit

Verdict = Literal["correct", "wrong", "unscored"]

QUANTITY_RULES: dict[str, str] = {
    "quantity_equal": "A numeric answer is right when it reads as one quantity whose value, "
    "converted exactly to the item's unit, equals the expected value, or lies within the "
    "tolerance the item states.",
    "quantity_bare": "A number written without a unit is read in the item's unit, in the scale "
    "its question asks in or in full ('12.4' and '12,400,000,000' for 'in billions of US "
    "dollars'); a number with a unit but no scale word is right as written ('3186000人' for "
    "万人) and unscored when it is right only in the question's scale ('$12.4').",
    "quantity_unit": "A unit of another dimension or currency is wrong; a unit of the same "
    "dimension is converted exactly (180,000 kg is 180 t) and then compared; months and days, "
    "°C and °F, and currencies never convert.",
    "quantity_no_unit": "When neither the item nor its question names a unit, the answer's unit "
    "is not checked: the number as written, with its scale word, is compared.",
    "quantity_scale": "A value written in another scale is compared after the scale is applied "
    "(1,200 million = 1.2 billion); one that then differs is wrong with the scale named.",
    "quantity_rounded": "A value that equals the expected one only after rounding is wrong "
    "unless the item states a tolerance.",
    "quantity_hedge": "A hedged value (about, 约, ~) is right only when it is exact or within "
    "the tolerance; a bound (more than, at least, 超过, 以上) or a range is not the value "
    "asked, unless the whole range lies within the tolerance.",
    "quantity_none": "An answer in which no quantity can be read is wrong.",
    "quantity_ambiguous": "An answer whose reading is ambiguous (1,23; 12,5; 'tons'; a unit the "
    "table does not know; several different values; a reading right one way and wrong another) "
    "is unscored with the reason, never right.",
}


@dataclass(frozen=True)
class AnswerReading:
    """The one quantity of an answer, or `problem`: why there is none ("" when there is one)."""

    quantity: Quantity | None
    problem: str = ""
    ambiguous: bool = False
    """The problem makes the answer unscored (not merely wrong)."""


def read_answer(text: str) -> AnswerReading:
    """`text` read as exactly one quantity: dates, times and labels are skipped, a bare year
    beside another quantity is skipped, the same value written twice is one value."""
    found = find_quantities(text)
    unclear = [q for q in found if q.kind == "ambiguous"]
    if unclear:
        q = unclear[0]
        return AnswerReading(None, f"{q.text!r} is ambiguous: {q.reason}", ambiguous=True)
    numbers = [q for q in found if q.is_quantity]
    if len(numbers) > 1 and any(not q.year_like for q in numbers):
        numbers = [q for q in numbers if not q.year_like]
    if not numbers:
        return AnswerReading(None, "no quantity in the answer")
    distinct: list[Quantity] = []
    for q in numbers:
        same = next((d for d in distinct if _same_reading(d, q)), None)
        if same is None:
            distinct.append(q)
        elif same.unit is None and q.unit is not None:
            distinct[distinct.index(same)] = q
    if len(distinct) > 1:
        values = ", ".join(repr(q.text) for q in distinct)
        return AnswerReading(None, f"several different values: {values}", ambiguous=True)
    if negation := _negation(text, found):
        return AnswerReading(None, f"the answer negates or doubts its number ({negation!r})",
                             ambiguous=True)  # fmt: skip
    return AnswerReading(distinct[0])


_NEGATION = re.compile(
    r"(?i)(?<![A-Za-z])(?:not|never|isn't|wasn't|aren't|weren't|no|unknown|unclear|cannot|"
    r"can't|uncertain)(?![A-Za-z])|不|没|未|非|无法|并非|不详|未知"
)


def _negation(text: str, found: list[Quantity]) -> str:
    """A negation in the answer outside its quantities ("not 180,000"; 不到 is a bound)."""
    rest = list(text)
    for q in found:
        rest[q.start : q.end] = " " * (q.end - q.start)
    m = _NEGATION.search("".join(rest))
    return m.group() if m else ""


def _same_reading(a: Quantity, b: Quantity) -> bool:
    if a.kind != b.kind or a.bound != b.bound:
        return False
    if a.unit is not None and b.unit is not None:
        if a.unit.dimension != b.unit.dimension:
            return False
        return a.in_base() == b.in_base() and a.in_base(a.top) == b.in_base(b.top)
    return a.value == b.value and a.top == b.top


@dataclass(frozen=True)
class Expected:
    """What an item expects: `value` in `unit` with the scale applied (1260582 亿元 →
    126058200000000 yuan); `scale` is the scale the question asks in (10⁸), used to read a bare
    answer; tolerances are absolute (in `unit`, scale applied) or relative (a fraction)."""

    value: Fraction
    unit: Unit | None = None
    scale: Fraction = Fraction(1)
    text: str = ""
    tolerance: Fraction | None = None
    rel_tolerance: Fraction | None = None
    step: Fraction = Fraction(1)
    """The place of the expected value's last written digit (scale applied)."""

    def describe(self) -> str:
        unit = f" {self.unit.name}" if self.unit is not None else ""
        return f"{show(self.value)}{unit}"


def parse_unit(spec: str) -> tuple[Fraction, Unit | None]:
    """(scale, unit) of a unit as an item or question writes it: "tonnes", "亿元", "billion USD",
    "percent", "万人", "km/s"; ValueError when the table does not know it."""
    s = " ".join(spec.split())
    if not s:
        return Fraction(1), None
    probe = "1" + (" " if s[0].isascii() and s[0].isalpha() else "") + s
    found = [q for q in find_quantities(probe) if q.is_quantity]
    if len(found) != 1 or found[0].start != 0 or found[0].end != len(probe) or found[0].hedged:
        raise ValueError(f"unit {spec!r} is not in the unit table")
    q = found[0]
    if q.unit is not None and q.unit.ambiguous:
        raise ValueError(f"unit {spec!r} is ambiguous ({q.unit.name}): name one meaning")
    return q.value, q.unit


def expected_quantity(
    value: str,
    unit: str = "",
    tolerance: float | None = None,
    rel_tolerance: float | None = None,
) -> Expected | None:
    """The item's contract as an `Expected`, or None when `value` is not one quantity (a text
    answer). ValueError for a unit the table does not know or a unit that contradicts the value."""
    reading = read_answer(value)
    if reading.quantity is None or reading.quantity.kind != "number":
        return None
    q = reading.quantity
    scale, spec_unit = parse_unit(unit)
    if q.unit is not None and spec_unit is not None and q.unit.key != spec_unit.key:
        raise ValueError(f"value {value!r} is in {q.unit.name}, but the unit says {unit!r}")
    if q.scale != 1 and scale != 1 and q.scale != scale:
        raise ValueError(f"value {value!r} has its own scale, but the unit says {unit!r}")
    the_unit = q.unit or spec_unit
    the_scale = q.scale if q.scale != 1 else scale
    number = q.value if q.scale != 1 else q.value * scale
    tol = _fraction(tolerance, "tolerance")
    step = q.step if q.scale != 1 else q.step * scale
    absolute = tol * the_scale if tol is not None else None
    relative = _fraction(rel_tolerance, "rel_tolerance")
    return Expected(number, the_unit, the_scale, value, absolute, relative, step)


def _fraction(x: float | None, name: str) -> Fraction | None:
    if x is None:
        return None
    if (
        isinstance(x, bool)
        or not isinstance(x, int | float)
        or x != x
        or x < 0
        or x == float("inf")
    ):
        raise ValueError(f"{name} must be a finite number >= 0, got {x!r}")
    return Fraction(str(x))


_IN_UNIT = re.compile(
    r"(?i)(?<![A-Za-z])in\s+(?:(?P<scale>(?:" + "|".join(SCALE_WORDS) + r")s)\s+of\s+)?"
    r"(?P<words>[^\s,;?？。]+(?:\s+[^\s,;?？。]+){0,2})"
)
_HOW_MANY = re.compile(
    r"(?i)(?<![A-Za-z])how\s+many\s+(?:(?P<scale>" + "|".join(SCALE_WORDS) + r")\s+)?"
    r"(?P<unit>[A-Za-z/]+(?:\s+[A-Za-z]+)?)"
)
_CN_HOW_MUCH = re.compile(
    r"(?:多少|几)(?P<unit>[十百千万亿]*[^\s，。？?、的是了,]{1,4}?)(?=[？?。，,]|$)"
)
_PERCENT_ASKED = re.compile(r"百分之(?:多少|几)|(?i:(?<![A-Za-z])what\s+(?:percentage|percent))")


def unit_asked(question: str) -> str:
    """The unit a question states explicitly, as a unit spec ("tonnes", "billion US dollars",
    "亿元", "percent"), or "" when it states none the table knows."""
    if _PERCENT_ASKED.search(question):
        return "percent"
    candidates: list[str] = []
    for m in _IN_UNIT.finditer(question):
        scale = (m.group("scale") or "").lower().removesuffix("s")
        words = m.group("words").split()
        candidates.extend(f"{scale} {' '.join(words[:n])}".strip() for n in (3, 2, 1))
    for m in _HOW_MANY.finditer(question):
        scale = (m.group("scale") or "").lower()
        words = m.group("unit").split()
        candidates.extend(f"{scale} {' '.join(words[:n])}".strip() for n in (2, 1))
    for m in _CN_HOW_MUCH.finditer(question):
        candidates.append(m.group("unit"))
    for spec in candidates:
        try:
            scale, unit = parse_unit(spec)
        except ValueError:
            continue
        if unit is not None:
            return spec
    return ""


@dataclass(frozen=True)
class QuantityMatch:
    verdict: Verdict
    rule: str
    reason: str


def grade_answer(text: str, expected: Expected) -> QuantityMatch:
    """`text` read with `read_answer` and compared with `match_quantity`."""
    reading = read_answer(text)
    if reading.quantity is None:
        if reading.ambiguous:
            return QuantityMatch("unscored", "quantity_ambiguous", reading.problem)
        return QuantityMatch("wrong", "quantity_none", reading.problem)
    return match_quantity(reading.quantity, expected)


def match_quantity(found: Quantity, expected: Expected) -> QuantityMatch:
    """The verdict on `found` against `expected` (see `QUANTITY_RULES`)."""
    if found.kind == "ambiguous":
        return QuantityMatch("unscored", "quantity_ambiguous", f"{found.text!r}: {found.reason}")
    if not found.is_quantity:
        return QuantityMatch("wrong", "quantity_none", f"{found.text!r} is a {found.kind}")
    if expected.unit is not None and found.unit is None and found.unknown_unit:
        return QuantityMatch(
            "unscored", "quantity_ambiguous",
            f"{found.text!r} is followed by {found.unknown_unit!r}, a unit the table does not "
            f"know: it cannot be checked against {expected.unit.name}",
        )  # fmt: skip
    if found.unit is None and found.scale == 1 and expected.scale != 1 and not found.words:
        # A bare number is given in the scale asked ("1,260,582" for 亿元) or in full
        # ("3,500,000" for millions): right when either reading is.
        in_scale = _match_one(found, None, True, expected)
        in_full = _match_one(found, None, False, expected)
        return in_full if in_full.verdict == "correct" else in_scale
    readings = _readings(found, expected)
    verdicts = [
        _match_one(found, unit, in_item_scale, expected) for unit, in_item_scale in readings
    ]
    literal = [v for v, (_, in_scale) in zip(verdicts, readings, strict=True) if not in_scale]
    if {v.verdict for v in literal} == {"correct"}:
        return literal[0]  # "3186000人" for 万人 says the right number as written
    if len({v.verdict for v in verdicts}) == 1:
        return verdicts[0]
    right = (
        next(v for v in verdicts if v.verdict == "correct")
        if any(v.verdict == "correct" for v in verdicts)
        else verdicts[0]
    )
    other = next(v for v in verdicts if v.verdict != right.verdict)
    return QuantityMatch(
        "unscored", "quantity_ambiguous",
        f"{found.text!r} has two readings: {right.reason} / {other.reason}",
    )  # fmt: skip


def _readings(found: Quantity, expected: Expected) -> list[tuple[Unit | None, bool]]:
    """Each way `found` may be meant: (unit, read in the item's scale)."""
    units: list[Unit | None] = [found.unit]
    want = expected.unit
    if found.unit is not None and found.unit.ambiguous:
        units = list(found.unit.readings)
        if want is not None:
            same = [u for u in units if u is not None and u.dimension == want.dimension]
            units = list(same) or [found.unit]  # no meaning fits: named as written ("tons")
    if expected.unit is not None and found.unit is PERCENT and expected.unit is POINT:
        units = [PERCENT, POINT]  # "5%" is often written for 5 percentage points
    out: list[tuple[Unit | None, bool]] = []
    for unit in units:
        out.append((unit, False))
        if unit is not None and found.scale == 1 and expected.scale != 1 and not found.words:
            out.append((unit, True))  # "$12.4" for a question in billions of dollars
    return out


def _match_one(found: Quantity, unit: Unit | None, in_item_scale: bool,
               expected: Expected) -> QuantityMatch:  # fmt: skip
    scale = expected.scale if in_item_scale else Fraction(1)
    low, high, step = found.low * scale, found.top * scale, found.step * scale
    where = f"{found.text!r}"
    notes: list[str] = []
    if expected.unit is None:
        if unit is not None:
            notes.append(f"unit {unit.name} not checked: the item names none")
        rule_equal = "quantity_no_unit"
    elif unit is None:
        rule_equal = "quantity_bare"
        if in_item_scale and expected.scale != 1:
            notes.append(f"read in the item's scale (× {show(expected.scale)})")
    elif unit.dimension != expected.unit.dimension:
        return QuantityMatch("wrong", "quantity_unit", f"{where} is in {unit.name}, not "
                             f"{expected.unit.name} ({_why_not(unit, expected.unit)})")  # fmt: skip
    else:
        rule_equal = "quantity_equal"
        if unit.key != expected.unit.key:
            factor = unit.factor / expected.unit.factor
            low, high, step = low * factor, high * factor, step * factor
            notes.append(f"{show(found.low * scale)} {unit.name} = {show(low)} "
                         f"{expected.unit.name}")  # fmt: skip
        if in_item_scale and expected.scale != 1:
            notes.append(f"read in the item's scale (× {show(expected.scale)})")
    want = expected.value
    tol = _tolerance(expected)
    shown = f"{show(low)}" if low == high else f"{show(low)}–{show(high)}"
    head = f"{where} reads as {shown}" + (f" ({'; '.join(notes)})" if notes else "")
    if found.kind == "range":
        if tol is not None and want - tol <= low and high <= want + tol:
            return QuantityMatch("correct", "quantity_hedge", f"{head}: the whole range is "
                                 f"within ±{show(tol)} of {show(want)}")  # fmt: skip
        return QuantityMatch("wrong", "quantity_hedge", f"{head}: a range, not the single value "
                             f"{show(want)} asked")  # fmt: skip
    if found.bound:
        return QuantityMatch("wrong", "quantity_hedge", f"{head}: a bound ({found.bound} "
                             f"{shown}), not the value {show(want)} asked")  # fmt: skip
    if low == want:
        hedge = f"; hedged ({found.hedge!r}) but exact" if found.hedge else ""
        return QuantityMatch("correct", rule_equal, f"{head}, equal to {show(want)}{hedge}")
    if tol is not None and abs(low - want) <= tol:
        return QuantityMatch("correct", "quantity_equal", f"{head}, within ±{show(tol)} of "
                             f"{show(want)}")  # fmt: skip
    return QuantityMatch("wrong", *_why_differs(found, low, step, unit, expected, head))


def _tolerance(expected: Expected) -> Fraction | None:
    tols = [t for t in (expected.tolerance,) if t is not None]
    if expected.rel_tolerance is not None:
        tols.append(abs(expected.value) * expected.rel_tolerance)
    return max(tols) if tols else None


def _why_not(unit: Unit, want: Unit) -> str:
    if unit.dimension.startswith("money") and want.dimension.startswith("money"):
        return "currencies are not converted"
    if {unit.dimension, want.dimension} == {"time", "calendar"}:
        return "months and years have no fixed length in days"
    return f"{unit.dimension} is not {want.dimension}"


def _why_differs(found: Quantity, value: Fraction, step: Fraction, unit: Unit | None,
                 expected: Expected, head: str) -> tuple[str, str]:  # fmt: skip
    want = expected.value
    hedge = f" ({found.hedge!r})" if found.hedge else ""
    if step > 0 and abs(want - value) * 2 <= step and step > expected.step:
        return "quantity_rounded", (
            f"{head}{hedge}: {show(want)} rounded to {show(step)}, not the exact value; the item "
            f"states no tolerance"
        )
    if (
        found.scale not in (1, expected.scale)
        and expected.scale != 1
        and found.value / found.scale * expected.scale == want
    ):
        return "quantity_scale", (
            f"{head}: the number is right but in another scale (× {show(found.scale)}, "
            f"the item asks × {show(expected.scale)})"
        )
    if (
        unit is not None
        and expected.unit is not None
        and unit.key != expected.unit.key
        and found.value == want
    ):
        return "quantity_unit", (
            f"{head}: the number is right but in {unit.name}, not {expected.unit.name}"
        )
    return "quantity_equal", f"{head}{hedge}, not {show(want)}"


Agreement = Literal["same", "different", "unknown"]


@dataclass(frozen=True)
class Comparison:
    agreement: Agreement
    reason: str


def compare_quantities(first: Quantity, second: Quantity, rel_tolerance: float = 0.0) -> Comparison:
    """Whether `second` states the value `first` states, after exact unit conversion and with a
    relative tolerance: a number inside a range agrees with it, one outside does not; two
    overlapping but different ranges are "unknown"; a unit that converts to the other by no
    fixed factor is "unknown", another dimension or currency is "different"; a unit missing on
    one side is taken to be the other's, but a word the unit table does not know is no missing
    unit: "5 calendar days" against "5 business days", or "45 staff" against "$45", is
    "unknown"."""
    if not (first.is_quantity and second.is_quantity):
        return Comparison("unknown", "not both quantities")
    for a, b in ((first, second), (second, first)):
        other_word = (b.unknown_unit or a.unknown_unit).casefold()
        if a.unknown_unit and (b.unit is not None or other_word != a.unknown_unit.casefold()):
            return Comparison(
                "unknown",
                f"{a.text!r} is followed by {a.unknown_unit!r}, a unit the table does not know",
            )
    if first.unit is not None and second.unit is not None:
        if first.unit.ambiguous or second.unit.ambiguous:
            return Comparison("unknown", "an ambiguous unit")
        if first.unit.dimension != second.unit.dimension:
            if {first.unit.dimension, second.unit.dimension} == {"time", "calendar"}:
                return Comparison("unknown", _why_not(second.unit, first.unit))
            return Comparison("different", f"{second.text!r} is in {second.unit.name}, "
                              f"{first.text!r} in {first.unit.name}")  # fmt: skip
    a_low, a_high = first.in_base(first.low), first.in_base(first.top)
    b_low, b_high = second.in_base(second.low), second.in_base(second.top)
    if first.unit is None or second.unit is None:
        a_low, a_high, b_low, b_high = first.low, first.top, second.low, second.top
    slack = Fraction(str(rel_tolerance)) * max(abs(a_low), abs(a_high), abs(b_low), abs(b_high))
    if a_high + slack < b_low or b_high + slack < a_low:
        return Comparison("different", f"{second.text!r} ({second.describe()}) is not "
                          f"{first.text!r} ({first.describe()})")  # fmt: skip
    point_a, point_b = first.high is None, second.high is None
    if (point_a and point_b) or point_a != point_b:
        return Comparison("same", f"{second.text!r} agrees with {first.text!r}")
    if abs(a_low - b_low) <= slack and abs(a_high - b_high) <= slack:
        return Comparison("same", f"{second.text!r} is the range {first.text!r}")
    return Comparison("unknown", f"the ranges {first.text!r} and {second.text!r} overlap")
