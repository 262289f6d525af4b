"""The one reader of quantities in free text (English and Chinese): every number, with its unit,
scale, percent, hedge and range, and the span of the ORIGINAL text it was read from.

Who uses what:
- `find_quantities(text)`: every quantity in a text, left to right, including the dates, times
  and labels (page 110, A-1299, v1.2.3, phone numbers) it recognised so that a caller can skip
  them; `Quantity.kind` says which. Facts in dialogues, summary points, refusals (a number that
  counts is kind "number" or "range").
- `read_answer` / `match_quantity` (in `proctor.extract.quantity_match`): a short answer field
  read as exactly one quantity, and compared with an item's expected value and unit.
- The arithmetic and maths graders keep their own strict extractor (`extract.answer`,
  `extract.maths`); the digits themselves are read by the same `normalize.parse_number`.

How it reads (one job a file): `mapped.py` normalises the text keeping each character's origin;
`quantity_forms.py` sets aside dates, times, labels and ambiguous digit forms; `quantity_atoms.py`
reads the numbers (digits, Chinese numerals, English words); this module adds what surrounds
them (hedges, bounds, currency, scale, unit); `quantity_ranges.py` joins ranges; `units.py` is
the unit table and `scales.py` the scale words.

Decisions, stated once (each rule one sentence; the unit table's rules are in `units.py`, the
number words' in `numerals.py`, the normalisation's in `mapped.py`):
- Digits: "," groups thousands only in valid 3-digit groups ("1,260,582"); "1,23", "12,5" and
  "1,2345" are `ambiguous` (a decimal comma or a list), never a number; a plain space between
  3-digit groups ("180 000") is `ambiguous` too; "." is the decimal point.
- A sign belongs to a number when it touches the digit and follows no letter, digit or bracket.
- Ranges: "14–16", "14 – 16", "14~16", "14 to 16", "between 14 and 16", "14至16", "14到16",
  "十到十五" are ranges; a hyphen with no spaces ("14-16") is a range when the low end is below
  the high end, `ambiguous` when not ("5-3" may be a subtraction or a score); a spaced hyphen
  ("10 - 5") is a subtraction, so two numbers; "from 10.5 to 14.0" / "从…到…" is a change, two
  numbers; a unit, scale or percent written once after the high end applies to both ends, and a
  currency mark before the low end to both.
- Scale words multiply: thousand, million, billion, trillion, hundred, bn/mn/tn, "k"/"K" glued
  to digits ("18k"), 十百千万亿 and their compounds (十万, 百万, 千万, 万亿) after digits ("18万",
  "126万亿"); "m"/"M", "b"/"B", "T" glued to digits are million/billion/trillion only in a money
  amount ("$5m"), otherwise "m" is metres and "M", "B", "T" are not read.
- Percent: "%", "percent", "pct", 百分之…, 三成 (= 30 %), ‰, 千分之…; "percentage points", "pp",
  个百分点 are a different unit (see `units.py`).
- Hedges (about, around, approximately, roughly, nearly, almost, circa, some, ~, ≈, 约,
  大约, 大概, 近, 将近, 接近, 差不多, 估计, 预计, 左右, 上下, or so) are kept on the quantity
  (`hedge`); bounds (more than, over, at least, under, up to, 超过, 逾, 不到, 至少, 以上,
  以下, 多, 余, "+") are kept as `bound` ("<", "<=", ">", ">="); 近 before a span of time
  ("近5年") means "the last", not a hedge.
- Dates and times are `date`/`time`, not numbers: "2023-05-01", "2023/05/01", "2023年5月1日",
  "5月1日", "May 1, 2023", "2023年", "10:30", "9 a.m.", "下午3点30分"; a bare 4-digit year is a date
  after "in/since/until/during/before/after/by/from/of/year/fiscal" and otherwise a number with
  `year_like` set (a short answer ignores it beside another quantity).
- Labels are not quantities: digits glued to letters ("K2", "A-1299", "COVID-19", "3rd", "4G"),
  locators (page 110, p. 5, table 3, No. 5, #5, 第3页, 表3, 第三), dotted chains ("1.2.3",
  "192.168.0.1"), phone numbers, leading zeros ("007"), ratios ("3:2"), slashed chains.
- A word right after a number that is not a unit, scale, hedge or a common function word is kept
  as `unknown_unit` ("180,000 barrels"): a caller that checks units cannot check that one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from proctor.extract.mapped import MappedText, map_text
from proctor.extract.normalize import decimal_string
from proctor.extract.numerals import CN_NUMERAL_CHARS
from proctor.extract.quantity_atoms import HALF_WORDS, Atom, Bound, QuantityKind, number_atoms
from proctor.extract.quantity_forms import MONTH_NAMES, dates_and_times
from proctor.extract.quantity_ranges import join_ranges
from proctor.extract.scales import (
    ABBREVIATED_SCALES,
    CN_SCALE_RUN,
    CN_SCALES,
    GLUED_SCALES,
    MONEY_SCALES,
    SCALE_WORDS,
)
from proctor.extract.units import CURRENCY_PREFIXES, MONTH, PERCENT, PERMILLE, Unit, unit_at


@dataclass(frozen=True)
class Quantity:
    """One thing the reader found in a text.

    For kind "number": `value` is the number as written with its scale applied, in `unit`
    ("18万吨" → 180000, unit tonne; "35.7%" → 35.7, unit percent; "$12.4 billion" → 12.4e9, USD).
    For "range": `value` is the low end, `high` the high end. For "date"/"time": `stamp` is the
    ISO form ("2023-05-01", "2023", "10:30"). For "label"/"ambiguous": `reason` says why.
    `step` is the place value of the last digit written (for "126万亿" 10¹², for "35.7" 0.1): a
    value that differs from another by less than a step may be it, rounded.
    """

    kind: QuantityKind
    text: str
    start: int
    end: int
    value: Fraction = Fraction(0)
    high: Fraction | None = None
    unit: Unit | None = None
    scale: Fraction = Fraction(1)
    step: Fraction = Fraction(1)
    hedge: str = ""
    bound: Bound = ""
    stamp: str = ""
    reason: str = ""
    unknown_unit: str = ""
    year_like: bool = False
    words: bool = False
    """Written in words (三十五, eighty-five) rather than digits."""

    @property
    def low(self) -> Fraction:
        return self.value

    @property
    def top(self) -> Fraction:
        """The high end of a range, the value of a number."""
        return self.value if self.high is None else self.high

    @property
    def hedged(self) -> bool:
        return bool(self.hedge or self.bound)

    @property
    def is_quantity(self) -> bool:
        """A number or a range: what a caller counts as a number stated by the text."""
        return self.kind in ("number", "range")

    def in_base(self, value: Fraction | None = None) -> Fraction:
        """`value` (default: this quantity's) in the base unit of its dimension."""
        v = self.value if value is None else value
        return v * self.unit.factor if self.unit is not None and not self.unit.ambiguous else v

    def describe(self) -> str:
        """The reading in a few words: "180000 tonne", "14–16 percent", "date 2023"."""
        if self.kind in ("date", "time"):
            return f"{self.kind} {self.stamp}"
        if self.kind in ("label", "ambiguous"):
            return f"{self.kind} {self.text!r} ({self.reason})"
        number = show(self.value) if self.high is None else f"{show(self.value)}–{show(self.high)}"
        unit = f" {self.unit.name}" if self.unit is not None else ""
        hedge = f"{self.bound or '~'}" if self.hedged else ""
        return f"{hedge}{number}{unit}"


def show(value: Fraction) -> str:
    """A value in digits: "180000", "35.7", "1/3"."""
    return decimal_string(value) or f"{value.numerator}/{value.denominator}"


# ------------------------------------------------------------------------------------------
# Numbers.

_UNKNOWN_CLASSIFIERS = frozenset(
    "分只件条张本份项种所座套层批部支架艘头匹棵颗粒片块箱袋包瓶杯桶间栋组队届期轮场"
)
_FUNCTION_WORD_LIST = """
in of for as at by per from to and or than with on over under was were is are be been being
which that this these those the a an it its their his her our your my has have had will
would could should may might can if but so because while when where who whom whose what
about around approximately roughly nearly almost some only just exactly precisely total
overall each every all both more less most least up down out off into onto upon across after
before during since until till through cent estimated est approx according based source
sources year years annual annually globally worldwide respectively then there here now today
yesterday tomorrow also too very not no yes compared versus vs vs. rather instead plus minus
times x
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())
"""Words that may follow a number without being its unit ("180,000 in 2023")."""

_HEDGE_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?i:about|around|approximately|approx\.?|roughly|nearly|almost|circa|"
    r"ca\.|c\.|some|close to|an estimated|estimated|est\.|an approximate|maybe|perhaps|"
    r"possibly|probably|likely)"
    r"|~|≈|(?:大约|大概|大致|约|估计|预计|可能|或许|也许)有?|约为|约合|将近|接近|近|差不多)[ \t]*$"
)
_BOUND_BEFORE: tuple[tuple[re.Pattern[str], Bound], ...] = (
    (re.compile(r"(?:(?<![A-Za-z])(?i:at least|no less than|not less than|no fewer than)|不少于|"
                r"不低于|至少|≥|⩾|(?<![-=<>])>=)[ \t]*$"), ">="),
    (re.compile(r"(?:(?<![A-Za-z])(?i:at most|up to|no more than|not more than|as much as|"
                r"as many as)|不超过|最多|至多|最高|高达|≤|⩽|(?<![-=<>])<=)[ \t]*$"), "<="),
    (re.compile(r"(?:(?<![A-Za-z])(?i:more than|over|above|exceeding|in excess of|greater than|"
                r"upwards of)|超过|逾|超|高于|大于|多于|(?<![-=<>A-Za-z\"'/])>)[ \t]*$"), ">"),
    (re.compile(r"(?:(?<![A-Za-z])(?i:less than|under|below|fewer than|just under)|不到|不足|"
                r"低于|少于|小于|未满|未达|(?<![-=<>])<(?![A-Za-z/]))[ \t]*$"), "<"),
)  # fmt: skip
_HEDGE_AFTER = re.compile(r"[ \t]*(?:左右|上下|(?i:or so|or thereabouts)(?![A-Za-z]))")
_BOUND_AFTER: tuple[tuple[re.Pattern[str], Bound], ...] = (
    (
        re.compile(r"[ \t]*(?:以上|(?i:or more|or above|or higher|and above|and up)(?![A-Za-z]))"),
        ">=",
    ),
    (re.compile(r"[ \t]*(?:以下|(?i:or less|or fewer|or below|or under)(?![A-Za-z]))"), "<="),
    (re.compile(r"\+(?![\d])|-?(?i:plus)(?![A-Za-z])"), ">="),
)
_MORE = re.compile(r"[多余]")
_OF_A = re.compile(r"(?i)[ \t]+of[ \t]+an?(?=[ \t])")
_CHENG_WORDS = (
    "成为",
    "成本",
    "成交",
    "成立",
    "成功",
    "成员",
    "成绩",
    "成果",
    "成长",
    "成熟",
    "成群",
)
"""成 after a number is tenths (三成 = 30 %) except in these words."""
_AND_A_HALF = re.compile(r"(?i)[ \t]+and[ \t]+a[ \t]+half(?![A-Za-z])")
_PERCENT_BEFORE = re.compile(r"(?P<which>百|千|万)分之[ \t]*$")
_CURRENCY_BEFORE = re.compile(
    "(?:"
    + "|".join(
        (r"(?<![A-Za-z])" if p[0].isascii() and p[0].isalpha() else "") + re.escape(p)
        for p, _ in CURRENCY_PREFIXES
    )
    + r")[ \t]?$"
)
_CURRENCY_BY_MARK = dict(CURRENCY_PREFIXES)


def _one_of(words: Iterable[str]) -> str:
    """A regex alternative of `words`, longest first ("bln" before "bn")."""
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_WORD_SCALE = re.compile(r"(?i)[ \t]{0,2}-?(?P<w>" + _one_of(SCALE_WORDS) + r")(?![A-Za-z])")
_ABBR_SCALE = re.compile(r"[ \t]?(?P<w>" + _one_of(ABBREVIATED_SCALES) + r")(?![A-Za-z])")
_GLUED_SCALE = re.compile(r"(?P<w>" + _one_of(GLUED_SCALES) + r")(?![A-Za-z0-9])")
_MONEY_SCALE = re.compile(r"(?P<w>" + _one_of(MONEY_SCALES) + r")(?![A-Za-z0-9])")
_CN_BIG_SCALE = re.compile(r"[万亿]")
_CN_SCALE = re.compile(r"[ \t]?(?P<w>" + CN_SCALE_RUN + "|[百千])")
"""The runs of Chinese scale characters after a number (their values: `CN_SCALES`)."""
_SCALE_VALUE = {**SCALE_WORDS, **ABBREVIATED_SCALES, **GLUED_SCALES, **MONEY_SCALES}
_BETWEEN = re.compile(r"(?i)(?<![A-Za-z])between[ \t]+$|介于[ \t]*$")
_CHANGE = re.compile(r"(?i)(?<![A-Za-z])from[ \t]+$|[从由][ \t]*$")
_NUMBER_END = re.compile(r"[\d" + CN_NUMERAL_CHARS + r"%][ \t]*$")
"""A number just before: "~" there joins a range ("14~16"), it does not hedge."""
_TIME_SPAN_AFTER = re.compile(r"[ \t]*(?:个)?(?:年|月|天|日|周|星期|季度)")


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity, date, time, label and ambiguous number in `text`, left to right, with
    spans of `text` itself (see the module docstring for every rule)."""
    mapped = map_text(text)
    t = mapped.text
    claimed = bytearray(len(t))
    fixed = dates_and_times(t, claimed)
    numbers = number_atoms(t, claimed, fixed)
    for n in numbers:
        _extend(t, n)
    numbers = [n for n in numbers if not (n.needs_unit and n.unit is None)]
    numbers = join_ranges(t, numbers)
    found = [_quantity(mapped, n) for n in numbers] + [_fixed_quantity(mapped, *f) for f in fixed]
    return sorted(found, key=lambda q: (q.start, q.end))


def _fixed_quantity(mapped: MappedText, start: int, end: int, kind: QuantityKind, stamp: str,
                    reason: str) -> Quantity:  # fmt: skip
    a, b = mapped.span(start, end)
    return Quantity(kind, mapped.original[a:b], a, b, stamp=stamp, reason=reason)


# ------------------------------------------------------------------------------------------
# Around a number: prefixes (hedge, bound, currency, 百分之) and suffixes (scale, unit, hedge).


def _extend(t: str, n: Atom) -> None:
    if n.kind != "number":
        return
    _prefixes(t, n)
    core_end = n.end
    _suffixes(t, n)
    if n.end == core_end and core_end < len(t) and t[core_end].isascii() and t[core_end].isalpha():
        letters = re.compile(r"[A-Za-z]+").match(t, core_end)
        assert letters is not None
        n.end = letters.end()
        if letters.group() in ("M", "B", "T"):
            n.kind, n.reason = "ambiguous", f"{letters.group()} after a number that is not money "
            n.reason += "(million, billion, trillion, or a unit?)"
        else:
            n.kind, n.reason = "label", "digits run into letters (an ordinal, name or code)"


def _prefixes(t: str, n: Atom) -> None:
    head = t[max(0, n.start - 24) : n.start]
    if not n.words and (m := _PERCENT_BEFORE.search(head)):
        n.unit = PERCENT if m.group("which") == "百" else PERMILLE
        if m.group("which") == "万":
            n.value, n.step, n.unit = n.value / 100, n.step / 100, PERCENT
        n.start -= len(m.group())
        head = head[: len(head) - len(m.group())]
    if m := _CURRENCY_BEFORE.search(head):
        mark = m.group().strip()
        if not (mark == "$" and n.end < len(t) and t[n.end] == "$"):  # "$5$" is LaTeX
            n.unit, n.money = _CURRENCY_BY_MARK[mark], True
            n.start -= len(m.group())
            head = head[: len(head) - len(m.group())]
    if head.endswith("上") and n.words and t[n.start] in "百千万亿":
        n.bound, n.start, head = ">=", n.start - 1, head[:-1]  # 上百家: a hundred or more
    for pattern, bound in _BOUND_BEFORE:
        if m := pattern.search(head):
            n.bound = bound
            n.start -= len(m.group())
            head = head[: len(head) - len(m.group())]
            break
    else:
        if (m := _HEDGE_BEFORE.search(head)) and not (
            (m.group().strip() == "近" and _TIME_SPAN_AFTER.match(t, n.end))
            or (m.group().strip() == "~" and _NUMBER_END.search(head[: m.start()]))
        ):
            n.hedge = n.hedge or m.group().strip()
            n.start -= len(m.group())
            head = head[: len(head) - len(m.group())]
    if m := _BETWEEN.search(head):
        n.between_at = n.start - len(m.group())
    n.after_from = bool(_CHANGE.search(head))


def _suffixes(t: str, n: Atom) -> None:
    pos = n.end
    if m := _MORE.match(t, pos):
        n.bound, pos = n.bound or ">", m.end()
        if n.words and _CN_BIG_SCALE.match(t, pos):  # 一千多万 = over 10 million
            pos = _scale(t, n, pos)
    if not n.words:
        pos = _scale(t, n, pos)
        if m := _MORE.match(t, pos):
            n.bound, pos = n.bound or ">", m.end()
    if n.words and n.high is None and (m := _AND_A_HALF.match(t, pos)):
        n.value, n.step, pos = n.value + Fraction(1, 2), Fraction(1, 2), m.end()
    elif n.high is None and (half := _half(t, pos)) is not None:
        pos = half  # 两个半小时 = 2.5 hours, 两个半 = 2.5
        n.value, n.step = n.value + n.scale / 2, n.scale / 2
        if t.startswith("月", pos) and t.startswith("个半", pos - 2):
            n.unit, pos = MONTH, pos + 1  # 三个半月 = 3.5 months
    if t.startswith("成", pos) and not t.startswith(_CHENG_WORDS, pos):
        n.value, n.step, n.unit, pos = n.value * 10, n.step * 10, PERCENT, pos + 1
        if n.high is None and t.startswith("半", pos):
            n.value, n.step, pos = n.value + 5, Fraction(5), pos + 1  # 八成半 = 85 %
    else:
        if n.words and (m := _OF_A.match(t, pos)) and unit_at(t, _skip_spaces(t, m.end())):
            pos = m.end()  # "a third of a year": a third, in years
        pos = _unit(t, n, pos)
        if _half_after_unit(t, n, pos):
            n.value, n.step, pos = n.value + n.scale / 2, n.scale / 2, pos + 1  # 一年半, 两周半
    if m := _HEDGE_AFTER.match(t, pos):
        n.hedge, pos = n.hedge or m.group().strip(), m.end()
    else:
        for pattern, bound in _BOUND_AFTER:
            if m := pattern.match(t, pos):
                n.bound, pos = n.bound or bound, m.end()
                break
    n.end = pos
    if n.unit is None:
        n.unknown = _unknown_word(t, pos)


def _scale(t: str, n: Atom, pos: int) -> int:
    """Apply a scale word at `pos` (unless a longer unit is spelled there); the new position."""
    unit = unit_at(t, _skip_spaces(t, pos))
    candidates = [_WORD_SCALE.match(t, pos), _ABBR_SCALE.match(t, pos), _GLUED_SCALE.match(t, pos),
                  _CN_SCALE.match(t, pos)]  # fmt: skip
    if n.money:
        candidates.append(_MONEY_SCALE.match(t, pos))
    best = max((m for m in candidates if m), key=lambda m: m.end(), default=None)
    if best is None:
        return pos
    if unit is not None and (unit[1] > best.end() or (unit[1] == best.end() and not n.money)):
        return pos
    word = best.group("w")
    if word[0] in CN_SCALES:
        factor = 1
        for ch in word:
            factor *= CN_SCALES[ch]
    else:
        factor = _SCALE_VALUE.get(word, _SCALE_VALUE.get(word.lower(), 1))
    n.value, n.step, n.scale = n.value * factor, n.step * factor, n.scale * factor
    if n.high is not None:
        n.high *= factor
    return best.end()


def _skip_spaces(t: str, pos: int) -> int:
    end = pos
    while end < len(t) and end - pos < 2 and t[end] in " \t":
        end += 1
    return end


def _half_after_unit(t: str, n: Atom, pos: int) -> bool:
    """半 right after a unit of time: "一年半" is 1.5 years, "两周半" 2.5 weeks."""
    timed = n.unit is not None and n.unit.dimension in ("time", "calendar")
    half = t.startswith("半", pos) and not t.startswith(HALF_WORDS, pos)
    return timed and n.high is None and half


def _half(t: str, pos: int) -> int | None:
    """Where a half written right after a number ends, or None: 半 before a unit ("两个半小时",
    "三个半月"); 个半 also at the end of the text, before punctuation or before a noun ("两个半",
    "两个半苹果"), but not in a word that starts with 半 ("一个半导体" is a semiconductor)."""
    at = pos + 1 if t.startswith("个半", pos) else pos
    if not t.startswith("半", at) or t.startswith(HALF_WORDS, at):
        return None
    after = at + 1
    return after if at > pos or unit_at(t, after) is not None else None  # 个半 needs no unit


def _unit(t: str, n: Atom, pos: int) -> int:
    at = _skip_spaces(t, pos)
    if at < len(t) and t[at] == "-" and at + 1 < len(t) and t[at + 1].isalpha():
        at += 1  # "180,000-tonne"
    if t.startswith("个", at) and unit_at(t, at) is None:
        if n.needs_unit:
            return pos
        at += 1
    found = unit_at(t, at)
    if found is None:
        return pos
    unit, end = found
    if unit.key == "x" and at != n.end:
        return pos  # "3x" is three times; "3 x 4" is a product
    if unit.dimension.startswith("money") and n.unit is not None and n.money:
        if unit.dimension != n.unit.dimension and not unit.ambiguous:
            n.kind, n.reason = "ambiguous", f"two currencies ({n.unit.key} and {unit.key})"
        return end
    if n.unit is not None:  # 百分之… already set the unit
        return pos
    n.unit = unit
    return end


def _unknown_word(t: str, pos: int) -> str:
    m = re.compile(r"[ \t]{0,2}-?([A-Za-z]+)").match(t, pos)
    if m is not None:
        word = m.group(1)
        return "" if word.lower() in _FUNCTION_WORDS or word.lower() in MONTH_NAMES else word
    at = _skip_spaces(t, pos)
    if t.startswith("个", at):
        at += 1
    nxt = t[at] if at < len(t) else ""
    return nxt if nxt in _UNKNOWN_CLASSIFIERS else ""


def _quantity(mapped: MappedText, n: Atom) -> Quantity:
    a, b = mapped.span(n.start, n.end)
    text = mapped.original[a:b].strip()
    a += len(mapped.original[a:b]) - len(mapped.original[a:b].lstrip())
    b = a + len(text)
    if n.kind == "date":
        stamp = show(n.value) if n.high is None else f"{show(n.value)}/{show(n.high)}"
        return Quantity("date", text, a, b, stamp=stamp)
    if n.kind in ("label", "ambiguous"):
        return Quantity(n.kind, text, a, b, reason=n.reason)
    kind: QuantityKind = "range" if n.high is not None else "number"
    year_like = n.plain and n.unit is None and n.scale == 1 and 1900 <= n.value <= 2100
    return Quantity(
        kind, text, a, b, n.value, n.high, n.unit, n.scale, n.step, n.hedge, n.bound,
        unknown_unit=n.unknown, year_like=year_like, words=n.words,
    )  # fmt: skip
