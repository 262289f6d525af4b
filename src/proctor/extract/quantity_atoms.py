"""Pure: the numbers of a normalised text before their surroundings are read: digits (with
scientific notation), Chinese numerals and English number words, each an `Atom` with its exact
value, the place of its last digit and its span. `extract/quantities.py` then adds prefixes
(hedges, currency, 百分之), suffixes (scale, unit, hedge) and ranges, and states every rule.

Decisions, stated once: digits are read by `normalize.parse_number` (no second digit parser);
the rules for numbers in words are in `numerals.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from proctor.extract.normalize import parse_number
from proctor.extract.numerals import (
    CN_NUMERAL_CHARS,
    ENGLISH_NUMBER,
    WordNumber,
    read_chinese,
    read_english,
    read_vague_ji,
)
from proctor.extract.quantity_forms import Form, claim, free, labels
from proctor.extract.units import PERCENT, PERMILLE, Unit, is_cjk, unit_at

QuantityKind = Literal["number", "range", "date", "time", "label", "ambiguous"]
Bound = Literal["", "<", "<=", ">", ">="]

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
_CN_RUN = re.compile(r"负?[" + CN_NUMERAL_CHARS + r"]+(?:点[零〇一二三四五六七八九]+[万亿]*)?")
_CN_FRACTION = re.compile(
    r"(?P<den>["
    + CN_NUMERAL_CHARS
    + r"]+)分之(?P<num>["
    + CN_NUMERAL_CHARS
    + r"点]+|\d+(?:\.\d+)?)"
)
_CN_JI = re.compile(r"[" + CN_NUMERAL_CHARS + r"]*(?:几[十百千万亿]*|数[十百千万亿]+)")
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
    "三五成群",
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
_RANGE_JOINERS = frozenset("到至~-–—、或和")

_WORD_DIGIT = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9}  # fmt: skip
_FRACTION_WORD = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
                  "sixth": 6, "eighth": 8, "tenth": 10}  # fmt: skip
_ENGLISH_FRACTION = re.compile(
    r"(?i)(?<![A-Za-z])(?<!and )(?P<num>an?|one|two|three|four|five|six|seven|eight|nine)[ \t-]+"
    r"(?P<den>halves|half|thirds?|quarters?|fourths?|fifths?|sixths?|eighths?|tenths?)(?![A-Za-z])"
)
"""English fractions: one-third, two-thirds, a quarter, three quarters, one half."""


@dataclass
class Atom:
    """A number being read: it grows by its prefixes and suffixes (`extract/quantities.py`)."""

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


def number_atoms(t: str, claimed: bytearray, fixed: list[Form]) -> list[Atom]:
    """Numbers in digits (scientific notation first, then labels are set aside), in Chinese
    numerals and in English words."""
    found: list[Atom] = []
    if any(c.isdigit() for c in t):
        for m in _SCI.finditer(t):
            if free(claimed, m.start(), m.end()):
                claim(claimed, m.start(), m.end())
                found.append(_sci(m))
        labels(t, claimed, fixed)
        for m in _DIGITS.finditer(t):
            if free(claimed, m.start(), m.end()):
                claim(claimed, m.start(), m.end())
                found.append(_digits(m))
    if any(c in CN_NUMERAL_CHARS or c in "几半" for c in t):
        found.extend(_chinese(t, claimed))
    if any(c.isalpha() and c.isascii() for c in t):
        found.extend(_english(t, claimed))
    return sorted(found, key=lambda n: n.start)


_MAX_DIGITS = 300
"""Longer digit strings, or exponents, are not quantities (and would cost unbounded time)."""


def _sci(m: re.Match[str]) -> Atom:
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
    return Atom(m.start(), m.end(), value, scale / 10**places, signed=bool(m.group("sign")))


def _too_long(m: re.Match[str]) -> Atom:
    return Atom(m.start(), m.end(), Fraction(0), Fraction(1), kind="label",
                reason="too many digits to be a quantity")  # fmt: skip


def _digits(m: re.Match[str]) -> Atom:
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
        return Atom(m.start(), m.end(), Fraction(0), Fraction(1), kind="ambiguous", reason=why)
    places = len(body.split(".")[1]) if "." in body and den is None else 0
    plain = token.kind == "integer" and not sign and "," not in body
    return Atom(m.start(), m.end(), token.value, Fraction(1, 10**places), plain=plain,
                signed=bool(sign))  # fmt: skip


def _chinese(t: str, claimed: bytearray) -> list[Atom]:
    found: list[Atom] = []
    for m in _CN_ALL_PERCENT.finditer(t):
        if free(claimed, m.start(), m.end()):
            claim(claimed, m.start(), m.end())
            found.append(Atom(m.start(), m.end(), Fraction(100), Fraction(1), words=True,
                              unit=PERCENT))  # fmt: skip
    for m in _CN_FRACTION.finditer(t):
        if not free(claimed, m.start(), m.end()):
            continue
        den = read_chinese(m.group("den"))
        num_text = m.group("num")
        num = read_chinese(num_text) if not num_text[0].isdigit() else _digit_number(num_text)
        if den is None or num is None or den.high is not None or num.high is not None:
            continue
        claim(claimed, m.start(), m.end())
        ratio = {100: PERCENT, 1000: PERMILLE}.get(int(den.value))
        if ratio is not None:
            found.append(Atom(m.start(), m.end(), num.value, num.step, words=True, unit=ratio))
        elif den.value == 10**4:
            found.append(Atom(m.start(), m.end(), num.value / 100, num.step / 100, words=True,
                              unit=PERCENT))  # fmt: skip
        elif den.value:
            found.append(Atom(m.start(), m.end(), num.value / den.value, num.step / den.value,
                              words=True))  # fmt: skip
    for m in _CN_JI.finditer(t):
        s = m.group()
        if s == "几" and not (m.end() < len(t) and t[m.end()] in _CLASSIFIERS):
            continue
        if not free(claimed, m.start(), m.end()):
            continue
        read = read_vague_ji(s.replace("数", "几"))  # 数十 = 几十: several tens
        if read is not None:
            claim(claimed, m.start(), m.end())
            found.append(Atom(m.start(), m.end(), read.value, read.step, read.high, words=True,
                              hedge="几"))  # fmt: skip
    for m in _CN_RUN.finditer(t):
        if not free(claimed, m.start(), m.end()) or _after_digits(t, m.start()):
            continue
        n = _chinese_run(t, m.start(), m.end())
        if n is not None:
            claim(claimed, n.start, n.end)
            found.append(n)
    for m in _CN_HALF.finditer(t):
        if free(claimed, m.start(), m.end()):
            claim(claimed, m.start(), m.end())
            found.append(Atom(m.start(), m.end(), Fraction(1, 2), Fraction(1, 2), words=True,
                              needs_unit=True))  # fmt: skip
    return found


HALF_WORDS = ("半成", "半导", "半径", "半岛", "半球", "半数", "半年报", "半年度")
"""Words that start with 半 and are no half (半成品, 半导体, 半径…)."""
_CN_HALF = re.compile(
    r"(?<![零〇一二三四五六七八九十两百千万亿个多上下大前后])半(?!"
    + "|".join(w[1:] for w in HALF_WORDS)
    + ")"
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


def _digit_number(text: str) -> WordNumber | None:
    token = parse_number(text)
    if token is None:
        return None
    places = len(text.split(".")[1]) if "." in text else 0
    return WordNumber(token.value, Fraction(1, 10**places))


def _chinese_run(t: str, start: int, end: int) -> Atom | None:
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
    if before.endswith(("第", "星期", "周", "礼拜", "初", "点")):  # ordinals, weekdays, 点一
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
    if s == "一" and _article(t, end):
        return None
    value = -read.value if negative else read.value
    if nxt == "年" and all(c in "零〇一二三四五六七八九" for c in s) and 1000 <= value <= 2999:
        return Atom(start, end + 1, value, read.step, kind="date", words=True)  # 二〇二三年
    return Atom(start, end, value, read.step, read.high, words=True,
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


def _english(t: str, claimed: bytearray) -> list[Atom]:
    found: list[Atom] = []
    for m in _ENGLISH_FRACTION.finditer(t):
        if free(claimed, m.start(), m.end()):
            claim(claimed, m.start(), m.end())
            num = (
                1 if m.group("num").lower() in ("a", "an") else _WORD_DIGIT[m.group("num").lower()]
            )
            den = _FRACTION_WORD[m.group("den").lower().removesuffix("s")]
            found.append(Atom(m.start(), m.end(), Fraction(num, den), Fraction(1, den), words=True))
    for m in ENGLISH_NUMBER.finditer(t):
        for offset, number in read_english(m.group()):
            s, e = m.start() + offset, m.start() + number.end
            if not free(claimed, s, e):
                continue
            claim(claimed, s, e)
            found.append(Atom(s, e, number.value, number.step, words=True,
                              needs_unit=number.lone_one))  # fmt: skip
    return found
