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
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

from proctor.extract.mapped import MappedText, map_text
from proctor.extract.normalize import decimal_string, parse_number
from proctor.extract.numerals import (
    CN_NUMERAL_CHARS,
    ENGLISH_NUMBER,
    read_chinese,
    read_english,
    read_vague_ji,
)
from proctor.extract.units import (
    CURRENCY_CODES,
    CURRENCY_PREFIXES,
    PERCENT,
    PERMILLE,
    Unit,
    is_cjk,
    unit_at,
)

QuantityKind = Literal["number", "range", "date", "time", "label", "ambiguous"]
Bound = Literal["", "<", "<=", ">", ">="]


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
# Fixed forms first: dates, times, labels. Each claims its span before numbers are read.

_MONTH_NAMES = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_EDGE = r"(?<![A-Za-z0-9_.,/:-])"
_DATES = (
    re.compile(_EDGE + r"(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
               r"(?![\d]|[.,/-]\d)"),
    re.compile(r"(?<!\d)(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*[日号])?"),
    re.compile(r"(?<![\d.])(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]"),
    re.compile(r"(?i)(?<![A-Za-z])(?P<mn>" + _MONTH + r")\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?"
               r"\s+(?P<y>\d{4})(?!\d)"),
    re.compile(r"(?i)(?<![A-Za-z0-9_.])(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?P<mn>" + _MONTH
               + r")\.?,?\s+(?P<y>\d{4})(?!\d)"),
    re.compile(r"(?i)(?<![A-Za-z])(?P<mn>" + _MONTH + r")\.?,?\s+(?P<y>\d{4})(?!\d)"),
    re.compile(_EDGE + r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})(?![\d/])"),
    re.compile(_EDGE + r"(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])(?![\d-])"),
    re.compile(r"(?<![\d.])(?P<y>[12]\d{3})\s*年(?!\s*(?:前|后|後|间|間|之久|多|来))"),
    re.compile(r"(?<![\d.])(?P<m>1[0-2]|0?[1-9])\s*月份?(?![\d])"),
)  # fmt: skip
_TIMES = (
    re.compile(r"(?<![\d.:])(?P<h>[01]?\d|2[0-4]):(?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d))?(?![\d:])"
               r"(?:\s*(?P<ap>[ap])\.?\s?m\b\.?)?", re.IGNORECASE),
    re.compile(r"(?<![\d.])(?P<h>1[0-2]|0?[1-9])\s*(?P<ap>[ap])\.?\s?m(?:\.|\b)", re.IGNORECASE),
    re.compile(r"(?:(?P<day>上午|下午|晚上|早上|凌晨|中午|傍晚)\s*)?(?<![\d.])(?P<h>\d{1,2})\s*[点时:]"
               r"\s*(?P<mi>\d{1,2})\s*分"),
    re.compile(r"(?P<day>上午|下午|晚上|早上|凌晨|中午|傍晚)\s*(?P<h>\d{1,2})\s*[点时](?P<half>半)?"),
    re.compile(r"(?<![\d.])(?P<h>\d{1,2})\s*[点时](?:(?P<half>半)|整|钟)"),
)  # fmt: skip
_LABELS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![A-Za-z0-9_])(?P<letters>[A-Za-z]+)(?:[-_]?\d+)+(?:[-_.]?[A-Za-z0-9]+)*"),
     "digits glued to letters (a name or code)"),
    (re.compile(r"(?i)(?<![A-Za-z])(?:pp?|pages?|tables?|tab|rows?|columns?|col|sections?|sec|"
                r"figs?|figures?|chapters?|ch|items?|no|nos|appendix|lines?|para|paragraphs?|"
                r"steps?|versions?|ver|levels?|rank|room|floor|articles?|art|clauses?|"
                r"parts?|vol|volume|issue|grade|class|question|q)\.?\s*#?\s*\d+(?:[-–.]\d+)*"
                r"(?![\d])"), "a locator (page, table, number …)"),
    (re.compile(r"#\s*\d+"), "a locator (#)"),
    (re.compile(r"第\s*\d+(?:\.\d+)?\s*[页頁章节節条條款行列项項段名位期届次]?"),
     "an ordinal (第…)"),
    (re.compile(r"(?<![\d.])\d+\s*(?:页|頁)"), "a page"),
    (re.compile(r"[表图圖]\s*\d+"), "a table or figure"),
    (re.compile(r"(?<![A-Za-z0-9_.])\d{1,3}(?:\.\d{3}){2,}(?![A-Za-z0-9_.])"),
     "ambiguous:dots may group thousands or write a version"),
    (re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+){2,}(?![A-Za-z0-9_]|\.\d)"),
     "a dotted code (version, address)"),
    (re.compile(r"(?<![A-Za-z0-9_+])\+\d{1,3}[ -]?(?:\(\d+\)[ -]?)?\d{1,5}(?:[ -]\d{2,5}){1,4}"
                r"(?![\d])"),
     "a phone number"),
    (re.compile(r"(?<![A-Za-z0-9_])\(\d{2,4}\)\s*\d{3,4}[- ]\d{4}(?![\d])"), "a phone number"),
    (re.compile(r"(?<![A-Za-z0-9_.,-])\d+(?:-\d+){2,}(?![A-Za-z0-9_]|-\d)"),
     "hyphenated digit groups (a code)"),
    (re.compile(r"(?<![\d,.])\d{1,3}(?: \d{3})+(?![\d,.]\d|\d)"),
     "ambiguous:a plain space may group thousands or separate numbers"),
    (re.compile(r"(?<![\d,.])\d{1,3}(?:，\d{3})+(?![\d])"),
     "ambiguous:a full-width comma between digit groups (a list or thousands?)"),
    (re.compile(r"(?<![A-Za-z0-9_.,-])(?:0\d+-\d+|\d+-0\d+)(?![A-Za-z0-9_]|-\d)"),
     "a code with a leading zero"),
    (re.compile(r"(?<![A-Za-z0-9_.,])0\d+(?![\d.,]\d|\d)"), "a leading zero (an id or code)"),
    (re.compile(r"(?<![\d:])\d+(?::\d+)+(?![\d:])"), "a ratio or score"),
    (re.compile(r"(?<![\d/])\d+(?:/\d+){2,}(?![\d/])"), "a slashed code"),
)  # fmt: skip
_NOT_LABEL_LETTERS = CURRENCY_CODES | {"US", "HK", "NT"}


# ------------------------------------------------------------------------------------------
# Numbers.

_SCI = re.compile(
    r"(?:(?<![A-Za-z0-9_)\]%])(?P<sign>[-+]))?(?<![A-Za-z0-9_.,/])"
    r"(?P<mant>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    r"(?:\s*[×xX*·]\s*10\s*(?:\^|\*\*)\s*(?:\{\s*(?P<e1>[-+]?\d+)\s*\}|(?P<e2>[-+]?\d+))"
    r"|\s*[×xX*·]\s*10(?P<e3>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|[eE](?P<e4>[-+]?\d+)(?![A-Za-z0-9]))"
    r"|(?<![\d.×xX*·])\b10(?:\s*(?:\^|\*\*)\s*(?:\{\s*(?P<e5>[-+]?\d+)\s*\}|(?P<e6>[-+]?\d+))"
    r"|(?P<e7>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
)
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_DIGITS = re.compile(
    r"(?:(?<![A-Za-z0-9_)\]%])(?P<sign>[-+]))?(?<![A-Za-z0-9_.,/])"
    r"(?P<body>(?:\d[\d,]*\d|\d)(?:\.\d+)?|\.\d+)(?:/(?P<den>\d+))?(?![\d])"
)
_CN_RUN = re.compile(r"负?[" + CN_NUMERAL_CHARS + r"]+(?:点[零〇一二三四五六七八九]+)?")
_CN_FRACTION = re.compile(
    r"(?P<den>["
    + CN_NUMERAL_CHARS
    + r"]+)分之(?P<num>["
    + CN_NUMERAL_CHARS
    + r"点]+|\d+(?:\.\d+)?)"
)
_CN_JI = re.compile(r"[" + CN_NUMERAL_CHARS + r"]*几[十百千万亿]*")
_CN_ALL_PERCENT = re.compile(r"百分(?:之)?百")

# Words in which a Chinese numeral is not a number (checked against the run and its neighbours).
_CN_WORDS = (
    "一些",
    "一般",
    "一样",
    "一起",
    "一直",
    "一定",
    "一切",
    "一旦",
    "一致",
    "一下",
    "一边",
    "一向",
    "一再",
    "一律",
    "一概",
    "一贯",
    "一度",
    "一番",
    "一齐",
    "一并",
    "一同",
    "一连",
    "一经",
    "一时",
    "一面",
    "一旁",
    "一流",
    "一线",
    "一手",
    "一心",
    "一带",
    "一路",
    "一口",
    "一味",
    "一阵",
    "一举",
    "一道",
    "一共",
    "一点",
    "一会",
    "一体",
    "一块儿",
    "一点儿",
    "一丝",
    "一些",
    "统一",
    "唯一",
    "万一",
    "之一",
    "其一",
    "不一",
    "同一",
    "单一",
    "逐一",
    "专一",
    "划一",
    "十分",
    "万分",
    "千万",
    "万物",
    "万岁",
    "万能",
    "万众",
    "百姓",
    "百货",
    "百科",
    "百合",
    "百度",
    "三星",
    "万科",
    "万达",
    "一汽",
    "二手",
    "三角",
    "千方百计",
    "一五一十",
    "乱七八糟",
    "七上八下",
    "四面八方",
    "五颜六色",
    "十全十美",
    "九死一生",
    "三心二意",
    "一心一意",
    "成千上万",
    "千千万万",
    "一模一样",
    "一清二楚",
    "独一无二",
    "数一数二",
    "一二",
)
_CN_WORD_EXCEPT = {
    "十分": "钟之",
    "万分": "之",
    "千万": "元吨人个台辆户",
    "一点": "零〇一二三四五六七八九",
}
"""A word above is a numeral after all when one of these follows (十分钟 = 10 minutes)."""
_CLASSIFIERS = frozenset(
    "个只件条张本台辆家位名人次份项种所座套层岁倍成例批部支架艘头匹棵颗粒片块箱袋包瓶杯桶"
    "间栋户组队届期轮场"
)
_ARTICLE_CLASSIFIERS = frozenset(
    "个只件条张本家位名份项种所座套层部支架艘头匹棵颗粒片块箱袋包瓶杯间栋组队"
)
_UNKNOWN_CLASSIFIERS = frozenset(
    "只件条张本份项种所座套层批部支架艘头匹棵颗粒片块箱袋包瓶杯桶间栋组队届期轮场"
)
_RANGE_JOINERS = frozenset("到至~-–—、或和")

_FUNCTION_WORDS = frozenset(
    (
        "in",
        "of",
        "for",
        "as",
        "at",
        "by",
        "per",
        "from",
        "to",
        "and",
        "or",
        "than",
        "with",
        "on",
        "over",
        "under",
        "was",
        "were",
        "is",
        "are",
        "be",
        "been",
        "being",
        "which",
        "that",
        "this",
        "these",
        "those",
        "the",
        "a",
        "an",
        "it",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "my",
        "was",
        "has",
        "have",
        "had",
        "will",
        "would",
        "could",
        "should",
        "may",
        "might",
        "can",
        "if",
        "but",
        "so",
        "because",
        "while",
        "when",
        "where",
        "who",
        "whom",
        "whose",
        "what",
        "about",
        "around",
        "approximately",
        "roughly",
        "nearly",
        "almost",
        "some",
        "only",
        "just",
        "exactly",
        "precisely",
        "total",
        "overall",
        "each",
        "every",
        "all",
        "both",
        "more",
        "less",
        "most",
        "least",
        "up",
        "down",
        "out",
        "off",
        "into",
        "onto",
        "upon",
        "across",
        "after",
        "before",
        "during",
        "since",
        "until",
        "till",
        "through",
        "per",
        "cent",
        "estimated",
        "est",
        "approx",
        "according",
        "based",
        "source",
        "sources",
        "year",
        "years",
        "annual",
        "annually",
        "globally",
        "worldwide",
        "respectively",
        "then",
        "there",
        "here",
        "now",
        "today",
        "yesterday",
        "tomorrow",
        "also",
        "too",
        "very",
        "not",
        "no",
        "yes",
        "compared",
        "versus",
        "vs",
        "vs.",
        "rather",
        "instead",
        "plus",
        "minus",
        "times",
    )
)

_HEDGE_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?i:about|around|approximately|approx\.?|roughly|nearly|almost|circa|"
    r"ca\.|c\.|some|close to|an estimated|estimated|est\.|an approximate)"
    r"|~|≈|(?:大约|大概|大致|约|估计|预计)有?|约为|约合|将近|接近|近|差不多)[ \t]*$"
)
_BOUND_BEFORE: tuple[tuple[re.Pattern[str], Bound], ...] = (
    (re.compile(r"(?:(?<![A-Za-z])(?i:at least|no less than|not less than|no fewer than)|不少于|"
                r"不低于|至少)[ \t]*$"), ">="),
    (re.compile(r"(?:(?<![A-Za-z])(?i:at most|up to|no more than|not more than|as much as|"
                r"as many as)|不超过|最多|至多|最高|高达)[ \t]*$"), "<="),
    (re.compile(r"(?:(?<![A-Za-z])(?i:more than|over|above|exceeding|in excess of|greater than|"
                r"upwards of)|超过|逾|超|高于|大于|多于)[ \t]*$"), ">"),
    (re.compile(r"(?:(?<![A-Za-z])(?i:less than|under|below|fewer than|just under)|不到|不足|"
                r"低于|少于|小于|未满|未达)[ \t]*$"), "<"),
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
_CHENG_WORDS = ("成为", "成本", "成交", "成立", "成功", "成员", "成绩", "成果", "成长", "成熟")
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
_WORD_SCALE = re.compile(
    r"(?i)[ \t]{0,2}-?(?P<w>hundred|thousand|million|billion|trillion)(?![A-Za-z])"
)
_ABBR_SCALE = re.compile(r"[ \t]?(?P<w>bn|bln|mn|mln|tn|trn)(?![A-Za-z])")
_GLUED_SCALE = re.compile(r"(?P<w>[kK])(?![A-Za-z0-9])")
_MONEY_SCALE = re.compile(r"(?P<w>[mMbBT])(?![A-Za-z0-9])")
_CN_SCALE = re.compile(r"[ \t]?(?P<w>[十百千]?万亿|[十百千]?亿|[十百千]?万|[百千])")
_SCALE_VALUE = {
    "hundred": 10**2, "thousand": 10**3, "million": 10**6, "billion": 10**9,
    "trillion": 10**12, "bn": 10**9, "bln": 10**9, "mn": 10**6, "mln": 10**6, "tn": 10**12,
    "trn": 10**12, "k": 10**3, "K": 10**3, "m": 10**6, "M": 10**6, "b": 10**9, "B": 10**9,
    "T": 10**12,
}  # fmt: skip
_CN_SCALE_VALUE = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "亿": 10**8}
_YEAR_WORDS = re.compile(
    r"(?i)(?<![A-Za-z])(?:in|since|until|till|during|before|after|by|from|of|year|fiscal|fy|"
    r"through|as of|early|mid|late|end of|start of)[ \t]+$"
)
_RANGE_GAP = re.compile(r"[ \t]*(?:[–—~]|(?i:to)|至|到)[ \t]*|-")
_BETWEEN = re.compile(r"(?i)(?<![A-Za-z])between[ \t]+$|介于[ \t]*$")
_CHANGE = re.compile(r"(?i)(?<![A-Za-z])from[ \t]+$|[从由][ \t]*$")
_NUMBER_END = re.compile(r"[\d" + CN_NUMERAL_CHARS + r"%][ \t]*$")
"""A number just before: "~" there joins a range ("14~16"), it does not hedge."""
_TIME_SPAN_AFTER = re.compile(r"[ \t]*(?:个)?(?:年|月|天|日|周|星期|季度)")


@dataclass
class _Num:
    """A number being read: grows by its prefixes and suffixes."""

    start: int
    end: int
    value: Fraction
    step: Fraction
    high: Fraction | None = None
    words: bool = False
    lone_one: bool = False
    plain: bool = False
    signed: bool = False
    scale: Fraction = Fraction(1)
    unit: Unit | None = None
    hedge: str = ""
    bound: Bound = ""
    unknown: str = ""
    money: bool = False
    kind: QuantityKind = "number"
    reason: str = ""
    after_from: bool = False
    between_at: int = -1
    """Where "between"/"介于" starts, when it comes right before this number."""
    needs_unit: bool = False
    """A lone "one"/一: kept only when a unit follows."""


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity, date, time, label and ambiguous number in `text`, left to right, with
    spans of `text` itself (see the module docstring for every rule)."""
    mapped = map_text(text)
    t = mapped.text
    claimed = bytearray(len(t))
    fixed = _fixed_forms(t, claimed)
    numbers = _numbers(t, claimed, fixed)
    for n in numbers:
        _extend(t, n)
    numbers = [n for n in numbers if not (n.needs_unit and n.unit is None)]
    numbers = _join_ranges(t, numbers)
    found = [_quantity(mapped, n) for n in numbers] + [_fixed_quantity(mapped, *f) for f in fixed]
    return sorted(found, key=lambda q: (q.start, q.end))


def _free(claimed: bytearray, start: int, end: int) -> bool:
    return not any(claimed[start:end])


def _claim(claimed: bytearray, start: int, end: int) -> None:
    claimed[start:end] = b"\x01" * (end - start)


_Fixed = tuple[int, int, QuantityKind, str, str]
"""(start, end, kind, stamp, reason) of a date, time, label or ambiguous form."""


def _fixed_forms(t: str, claimed: bytearray) -> list[_Fixed]:
    found: list[_Fixed] = []
    if not any(c.isdigit() for c in t):
        return found
    for pattern in _DATES:
        for m in pattern.finditer(t):
            stamp = _date_stamp(m)
            if stamp and _free(claimed, m.start(), m.end()):
                _claim(claimed, m.start(), m.end())
                found.append((m.start(), m.end(), "date", stamp, ""))
    for pattern in _TIMES:
        for m in pattern.finditer(t):
            stamp = _time_stamp(m)
            if stamp and _free(claimed, m.start(), m.end()):
                _claim(claimed, m.start(), m.end())
                found.append((m.start(), m.end(), "time", stamp, ""))
    return found


def _labels(t: str, claimed: bytearray, found: list[_Fixed]) -> None:
    for pattern, why in _LABELS:
        for m in pattern.finditer(t):
            if "letters" in pattern.groupindex and m.group("letters") in _NOT_LABEL_LETTERS:
                continue
            if not _free(claimed, m.start(), m.end()):
                continue
            _claim(claimed, m.start(), m.end())
            kind: QuantityKind = "ambiguous" if why.startswith("ambiguous:") else "label"
            found.append((m.start(), m.end(), kind, "", why.removeprefix("ambiguous:")))


def _date_stamp(m: re.Match[str]) -> str:
    g = m.groupdict()
    year = int(g["y"]) if g.get("y") else None
    month = int(g["m"]) if g.get("m") else _MONTH_NAMES.get((g.get("mn") or "")[:3].lower())
    day = int(g["d"]) if g.get("d") else None
    if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
        return ""
    if year is not None and not 1000 <= year <= 2999:
        return ""
    parts = [f"{year:04d}" if year is not None else "-", f"{month:02d}" if month else "",
             f"{day:02d}" if day else ""]  # fmt: skip
    return "-".join(p for p in parts if p)


def _time_stamp(m: re.Match[str]) -> str:
    g = m.groupdict()
    hour = int(g["h"])
    minute = int(g["mi"]) if g.get("mi") else (30 if g.get("half") else 0)
    ap = (g.get("ap") or "").lower()
    day = g.get("day") or ""
    if (ap and not 1 <= hour <= 12) or hour > 24 or minute > 59:
        return ""
    if (ap == "p" and hour < 12) or (day in ("下午", "晚上", "傍晚") and hour < 12):
        hour += 12
    elif ap == "a" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}" + (f":{int(g['s']):02d}" if g.get("s") else "")


def _fixed_quantity(mapped: MappedText, start: int, end: int, kind: QuantityKind, stamp: str,
                    reason: str) -> Quantity:  # fmt: skip
    a, b = mapped.span(start, end)
    return Quantity(kind, mapped.original[a:b], a, b, stamp=stamp, reason=reason)


def _numbers(t: str, claimed: bytearray, fixed: list[_Fixed]) -> list[_Num]:
    """Numbers in digits (scientific notation first, then labels are set aside), in Chinese
    numerals and in English words."""
    found: list[_Num] = []
    if any(c.isdigit() for c in t):
        for m in _SCI.finditer(t):
            if _free(claimed, m.start(), m.end()):
                _claim(claimed, m.start(), m.end())
                found.append(_sci(m))
        _labels(t, claimed, fixed)
        for m in _DIGITS.finditer(t):
            if _free(claimed, m.start(), m.end()):
                _claim(claimed, m.start(), m.end())
                found.append(_digits(m))
    if any(c in CN_NUMERAL_CHARS or c in "几半" for c in t):
        found.extend(_chinese(t, claimed))
    if any(c.isalpha() and c.isascii() for c in t):
        found.extend(_english(t, claimed))
    return sorted(found, key=lambda n: n.start)


_MAX_DIGITS = 300
"""Longer digit strings, or exponents, are not quantities (and would cost unbounded time)."""


def _sci(m: re.Match[str]) -> _Num:
    exp_text = next(e for e in m.group("e1", "e2", "e3", "e4", "e5", "e6", "e7") if e is not None)
    mant = m.group("mant")
    if len(exp_text) > 4 or (mant and len(mant) > _MAX_DIGITS):
        return _too_long(m)
    exponent = int(exp_text.translate(_SUPERSCRIPT))
    token = parse_number(mant) if mant else None
    mantissa = token.value if token is not None else Fraction(1)
    places = len(mant.split(".")[1]) if mant and "." in mant else 0
    scale = Fraction(10) ** exponent
    value = -mantissa * scale if m.group("sign") == "-" else mantissa * scale
    return _Num(m.start(), m.end(), value, scale / 10**places, signed=bool(m.group("sign")))


def _too_long(m: re.Match[str]) -> _Num:
    return _Num(m.start(), m.end(), Fraction(0), Fraction(1), kind="label",
                reason="too many digits to be a quantity")  # fmt: skip


def _digits(m: re.Match[str]) -> _Num:
    body, den, sign = m.group("body"), m.group("den"), m.group("sign") or ""
    if len(body) + len(den or "") > _MAX_DIGITS:
        return _too_long(m)
    written = sign + body + (f"/{den}" if den else "")
    token = parse_number(written)
    if token is None:
        why = (
            "a comma not in 3-digit groups (a decimal comma or a list)"
            if "," in body
            else "a fraction with a zero denominator"
        )
        return _Num(m.start(), m.end(), Fraction(0), Fraction(1), kind="ambiguous", reason=why)
    places = len(body.split(".")[1]) if "." in body and den is None else 0
    plain = token.kind == "integer" and not sign and "," not in body
    return _Num(m.start(), m.end(), token.value, Fraction(1, 10**places), plain=plain,
                signed=bool(sign))  # fmt: skip


def _chinese(t: str, claimed: bytearray) -> list[_Num]:
    found: list[_Num] = []
    for m in _CN_ALL_PERCENT.finditer(t):
        if _free(claimed, m.start(), m.end()):
            _claim(claimed, m.start(), m.end())
            found.append(_Num(m.start(), m.end(), Fraction(100), Fraction(1), words=True,
                              unit=PERCENT))  # fmt: skip
    for m in _CN_FRACTION.finditer(t):
        if not _free(claimed, m.start(), m.end()):
            continue
        den = read_chinese(m.group("den"))
        num_text = m.group("num")
        num = read_chinese(num_text) if not num_text[0].isdigit() else _digit_number(num_text)
        if den is None or num is None or den.high is not None or num.high is not None:
            continue
        _claim(claimed, m.start(), m.end())
        ratio = {100: PERCENT, 1000: PERMILLE}.get(int(den.value))
        if ratio is not None:
            found.append(_Num(m.start(), m.end(), num.value, num.step, words=True, unit=ratio))
        elif den.value == 10**4:
            found.append(_Num(m.start(), m.end(), num.value / 100, num.step / 100, words=True,
                              unit=PERCENT))  # fmt: skip
        elif den.value:
            found.append(_Num(m.start(), m.end(), num.value / den.value, num.step / den.value,
                              words=True))  # fmt: skip
    for m in _CN_JI.finditer(t):
        s = m.group()
        if s == "几" and not (m.end() < len(t) and t[m.end()] in _CLASSIFIERS):
            continue
        if not _free(claimed, m.start(), m.end()):
            continue
        read = read_vague_ji(s)
        if read is not None:
            _claim(claimed, m.start(), m.end())
            found.append(_Num(m.start(), m.end(), read.value, read.step, read.high, words=True,
                              hedge="几"))  # fmt: skip
    for m in _CN_RUN.finditer(t):
        if not _free(claimed, m.start(), m.end()) or _after_digits(t, m.start()):
            continue
        n = _chinese_run(t, m.start(), m.end())
        if n is not None:
            _claim(claimed, n.start, n.end)
            found.append(n)
    for m in _CN_HALF.finditer(t):
        if _free(claimed, m.start(), m.end()):
            _claim(claimed, m.start(), m.end())
            found.append(_Num(m.start(), m.end(), Fraction(1, 2), Fraction(1, 2), words=True,
                              needs_unit=True))  # fmt: skip
    return found


_CN_HALF = re.compile(
    r"(?<![零〇一二三四五六七八九十两百千万亿个多上下大前后])半(?!成|导|径|岛|球|数|年报|年度)"
)
"""半 alone before a unit is a half ("半天", "半个月"); after a numeral it belongs to that number
("一个半小时"); without a unit, in 上半年/下半年/大半年 and in words (半成品, 半导体, 半年报) it is
no number."""


def _after_digits(t: str, start: int) -> bool:
    """Right after a number in digits ("18万", "5 百万"): the run is that number's scale."""
    at = start - 1
    if at >= 0 and t[at] == " ":
        at -= 1
    return at >= 0 and t[at].isdigit()


def _digit_number(text: str) -> _WordLike | None:
    token = parse_number(text)
    if token is None:
        return None
    places = len(text.split(".")[1]) if "." in text else 0
    return _WordLike(token.value, Fraction(1, 10**places))


@dataclass(frozen=True)
class _WordLike:
    value: Fraction
    step: Fraction
    high: Fraction | None = None


def _chinese_run(t: str, start: int, end: int) -> _Num | None:
    """A run of numeral characters read as a number, or None when it is part of a word."""
    negative = t[start] == "负"
    s = t[start + negative : end]
    if len(s) > 40:
        return None
    # A unit that starts with a scale character wins over the scale: 五千克 is 5 kg.
    for cut in range(1, len(s)):
        found = unit_at(t, start + negative + cut) if s[cut] in "千百万兆" else None
        if found is not None and found[1] > start + negative + cut + 1:
            s = s[:cut]
            end = start + negative + cut
            break
    before = t[max(0, start - 4) : start]
    after = t[end : end + 4]
    context = before + s + after
    run_at = len(before)
    for word in _CN_WORDS:
        at = context.find(word)
        while at >= 0:
            lo, hi = at, at + len(word)
            follows = context[hi : hi + 1]
            if lo <= run_at < hi and not (follows and follows in _CN_WORD_EXCEPT.get(word, "")):
                return None
            at = context.find(word, at + 1)
    if before.endswith(("第", "星期", "周", "礼拜", "初")):
        return None
    read = read_chinese(s)
    if read is None:
        return None
    nxt = t[end] if end < len(t) else ""
    if nxt == "点" and end + 1 < len(t) and t[end + 1] in "半整钟":
        return None  # a time: 三点半
    if len(s) == 1 and not _single_ok(t, end, s):
        return None
    if s[0] in "百千万亿佰仟萬億" and len(s) <= 2 and not _unit_follows(t, end):
        return None
    lone = s == "一" and _article(t, end)
    if lone:
        return None
    value = -read.value if negative else read.value
    if nxt == "年" and all(c in "零〇一二三四五六七八九" for c in s) and 1000 <= value <= 2999:
        return _Num(start, end + 1, value, read.step, kind="date", words=True)  # 二〇二三年
    return _Num(start, end, value, read.step, read.high, words=True,
                hedge="~" if read.vague else "")  # fmt: skip


def _unit_follows(t: str, end: int) -> bool:
    nxt = t[end] if end < len(t) else ""
    return bool(nxt) and (nxt in _CLASSIFIERS or nxt in "%多余" or unit_at(t, end) is not None)


def _article(t: str, end: int) -> bool:
    """一 before a classifier is the article "a" (一个, 一家), not the count 1; 一个月 is
    a month."""
    nxt = t[end] if end < len(t) else ""
    unit = unit_at(t, end)
    if t.startswith("个半", end):
        return False  # 一个半小时 = 1.5 hours
    return bool(nxt) and nxt in _ARTICLE_CLASSIFIERS and (unit is None or unit[1] == end + 1)


def _single_ok(t: str, end: int, s: str) -> bool:
    """One numeral character counts before a unit, classifier, scale, percent, range joiner or
    the end of a phrase."""
    nxt = t[end] if end < len(t) else ""
    if nxt == "" or nxt.isspace() or (not is_cjk(nxt) and not nxt.isalnum()):
        return True
    if _unit_follows(t, end) or nxt in "成倍":
        return True
    return (
        nxt in _RANGE_JOINERS
        and end + 1 < len(t)
        and (t[end + 1] in CN_NUMERAL_CHARS or t[end + 1].isdigit())
    )


def _english(t: str, claimed: bytearray) -> list[_Num]:
    found: list[_Num] = []
    for m in ENGLISH_NUMBER.finditer(t):
        for offset, number in read_english(m.group()):
            s, e = m.start() + offset, m.start() + number.end
            if not _free(claimed, s, e):
                continue
            _claim(claimed, s, e)
            found.append(_Num(s, e, number.value, number.step, words=True,
                              needs_unit=number.lone_one))  # fmt: skip
    return found


# ------------------------------------------------------------------------------------------
# Around a number: prefixes (hedge, bound, currency, 百分之) and suffixes (scale, unit, hedge).


def _extend(t: str, n: _Num) -> None:
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


def _prefixes(t: str, n: _Num) -> None:
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


def _suffixes(t: str, n: _Num) -> None:
    pos = n.end
    if m := _MORE.match(t, pos):
        n.bound, pos = n.bound or ">", m.end()
    if not n.words:
        pos = _scale(t, n, pos)
        if m := _MORE.match(t, pos):
            n.bound, pos = n.bound or ">", m.end()
    if n.words and n.high is None and (m := _AND_A_HALF.match(t, pos)):
        n.value, n.step, pos = n.value + Fraction(1, 2), Fraction(1, 2), m.end()
    elif (
        n.high is None
        and t.startswith(("个半", "半"), pos)
        and unit_at(t, pos + (2 if t.startswith("个半", pos) else 1))
    ):
        pos += 2 if t.startswith("个半", pos) else 1  # 两个半小时 = 2.5 hours
        n.value, n.step = n.value + n.scale / 2, n.scale / 2
    if t.startswith("成", pos) and not t.startswith(_CHENG_WORDS, pos):
        n.value, n.step, n.unit, pos = n.value * 10, n.step * 10, PERCENT, pos + 1
        if n.high is None and t.startswith("半", pos):
            n.value, n.step, pos = n.value + 5, Fraction(5), pos + 1  # 八成半 = 85 %
    else:
        pos = _unit(t, n, pos)
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


def _scale(t: str, n: _Num, pos: int) -> int:
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
    if word[0] in _CN_SCALE_VALUE:
        factor = 1
        for ch in word:
            factor *= _CN_SCALE_VALUE[ch]
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


def _unit(t: str, n: _Num, pos: int) -> int:
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
        return "" if word.lower() in _FUNCTION_WORDS or word.lower() in _MONTH_NAMES else word
    at = _skip_spaces(t, pos)
    if t.startswith("个", at):
        at += 1
    nxt = t[at] if at < len(t) else ""
    return nxt if nxt in _UNKNOWN_CLASSIFIERS else ""


# ------------------------------------------------------------------------------------------
# Ranges, years, and the final quantity.


def _join_ranges(t: str, numbers: list[_Num]) -> list[_Num]:
    out: list[_Num] = []
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


def _range(t: str, a: _Num, b: _Num) -> _Num | None:
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


def _merged(a: _Num, b: _Num, low: Fraction, high: Fraction, hedge: str) -> _Num:
    return _Num(
        a.start, b.end, low, min(a.step, b.step), high, words=a.words and b.words,
        scale=b.scale, unit=a.unit or b.unit, hedge=a.hedge or b.hedge or hedge,
        bound=a.bound or b.bound, unknown=b.unknown, money=a.money or b.money,
    )  # fmt: skip


def _quantity(mapped: MappedText, n: _Num) -> Quantity:
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
