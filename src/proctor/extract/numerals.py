"""Numbers written in words: Chinese numerals and English number words, read exactly.

Decisions, stated once:
- Chinese: 零〇一二三四五六七八九两 (and 壹贰叁肆伍陆柒捌玖拾佰仟, 萬億) with 十百千万亿;
  万亿 is 10¹²;
  点 is the decimal point (三十五点七 = 35.7); a trailing digit after a unit means the next lower
  unit, as people say it (一百二 = 120, 三千五 = 3500, 两万三 = 23000) but not after 十 or 零
  (十五 = 15, 一百零五 = 105); digits alone are read one by one (二〇二三 = 2023).
- Two neighbouring digits are an approximate range (七八个 = 7–8, 三五天 = 3–5, 二三十 = 20–30);
  几 is a vague range (几十 = 20–90, 十几 = 11–19, 几百 = 200–900).
- A numeral inside a word is not a number: 一些 一般 一样 统一 唯一 万一 之一 十分(very) 千万(by all
  means) 一点(a bit)…; one digit (一…九, 两, 十) alone counts only before a unit, a
  classifier, a scale, a percent or the end of a phrase (三星, 四川, 五金 are names); 一
  before a classifier (一个, 一家, 一种) is the article "a", not the count 1; a bare
  百/千/万/亿 counts only before a unit or classifier (百万吨 yes, 百度 no).
- English: zero…nineteen, twenty…ninety, hundred, thousand, million, billion, trillion, dozen,
  hyphens and "and" ("one hundred and twenty", "eighty-five"), "a hundred", "a dozen", "point"
  ("three point five"). "one" alone is the pronoun or article ("one of them", "one reason") and
  counts only before a unit of the unit table ("one tonne", "one day", "one person").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "两": 2, "三": 3, "叁": 3, "四": 4,
    "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9,
    "玖": 9,
}  # fmt: skip
_CN_SMALL = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_BIG = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
CN_NUMERAL_CHARS = "".join(_CN_DIGITS) + "".join(_CN_SMALL) + "".join(_CN_BIG)
CN_SCALE_CHARS = "十拾百佰千仟万萬亿億"


@dataclass(frozen=True)
class WordNumber:
    """A number read from words: its value, the place value of its last written digit, and the
    high end when it is an approximate range (七八, 几十)."""

    value: Fraction
    step: Fraction
    high: Fraction | None = None
    vague: bool = False


def _small(s: str) -> tuple[int, int] | None:
    """(value, place of the last digit) of a numeral below 万, else None."""
    value, digit, last_unit, place, after_zero = 0, None, 10**4, 1, False
    for i, ch in enumerate(s):
        if ch in _CN_DIGITS:
            d = _CN_DIGITS[ch]
            if d == 0:
                if i == 0 or digit is not None:
                    return None
                after_zero = True
                continue
            if digit is not None:
                return None
            digit = d
        else:
            unit = _CN_SMALL[ch]
            if unit >= last_unit:
                return None
            if digit is None:
                if value or after_zero or (unit != 10 and i > 0):
                    return None
                digit = 1
            value += digit * unit
            place, digit, last_unit, after_zero = unit, None, unit, False
    if digit is not None:
        # 一百二 = 120, 三千五 = 3500: a last digit after 百/千 means the next lower unit.
        place = last_unit // 10 if 10 < last_unit < 10**4 and not after_zero else 1
        value += digit * place
    return (value, place) if s else None


def _big(s: str) -> tuple[int, int] | None:
    """(value, place of the last digit) of an integer numeral with 万/亿, else None."""
    for unit_char, unit in (("亿", 10**8), ("億", 10**8), ("万", 10**4), ("萬", 10**4)):
        at = s.rfind(unit_char)
        if at < 0:
            continue
        head, tail = s[:at], s[at + 1 :]
        if not head:
            return None
        high = _big(head)
        if high is None:
            return None
        if not tail:
            return high[0] * unit, high[1] * unit
        if len(tail) == 1 and tail in _CN_DIGITS and tail not in "零〇":
            lower = unit // 10  # 两万三 = 23000
            return high[0] * unit + _CN_DIGITS[tail] * lower, lower
        low = _big(tail.removeprefix("零").removeprefix("〇"))
        if low is None or low[0] >= unit:
            return None
        return high[0] * unit + low[0], low[1]
    return _small(s)


_APPROX_PAIRS = frozenset(
    ("一两", "两三", "二三", "三四", "四五", "五六", "六七", "七八", "八九", "三五")
)


def read_chinese(s: str) -> WordNumber | None:
    """The value of the Chinese numeral `s` (integer, decimal with 点, digit by digit, or an
    approximate pair), else None."""
    whole, _, frac = s.partition("点")
    if frac:
        scale = 1
        while frac and frac[-1] in _CN_BIG:  # 三十五点七万 = 357000
            scale *= _CN_BIG[frac[-1]]
            frac = frac[:-1]
        if scale != 1:
            read = read_chinese(f"{whole}点{frac}")
            return None if read is None else WordNumber(read.value * scale, read.step * scale)
        if not frac or any(c not in _CN_DIGITS for c in frac) or "两" in frac:
            return None
        head = (
            WordNumber(Fraction(0), Fraction(1)) if whole in ("零", "〇") else read_chinese(whole)
        )
        if head is None or head.high is not None:
            return None
        scale = 10 ** len(frac)
        digits = int("".join(str(_CN_DIGITS[c]) for c in frac))
        return WordNumber(head.value + Fraction(digits, scale), Fraction(1, scale))
    if len(s) >= 2 and all(c in _CN_DIGITS for c in s):
        if s[:2] in _APPROX_PAIRS and len(s) == 2:
            low, high = _CN_DIGITS[s[0]], _CN_DIGITS[s[1]]
            return WordNumber(Fraction(low), Fraction(1), Fraction(high), vague=True)
        if "两" in s or (len(s) < 3 and "〇" not in s and "零" not in s):
            return None
        return WordNumber(Fraction(int("".join(str(_CN_DIGITS[c]) for c in s))), Fraction(1))
    if len(s) >= 3 and s[:2] in _APPROX_PAIRS and all(c in CN_SCALE_CHARS for c in s[2:]):
        unit = _big("一" + s[2:])  # 二三十 = 20–30, 三四百 = 300–400
        if unit is None:
            return None
        low, high = _CN_DIGITS[s[0]] * unit[0], _CN_DIGITS[s[1]] * unit[0]
        return WordNumber(Fraction(low), Fraction(unit[0]), Fraction(high), vague=True)
    whole_number = _big(s)
    if whole_number is None:
        return None
    return WordNumber(Fraction(whole_number[0]), Fraction(whole_number[1]))


def read_vague_ji(s: str) -> WordNumber | None:
    """几 as a vague number: 几十 = 20–90, 十几 = 11–19, 二十几 = 21–29, 几百 = 200–900,
    几 = 2–9."""
    before, _, after = s.partition("几")
    if "几" in after:
        return None
    scale = 1
    if after:
        read = _big("一" + after)
        if read is None:
            return None
        scale = read[0]
    base = 0
    if before:
        read = _big(before)
        if read is None or read[1] <= scale:
            return None
        base = read[0]
        if read[1] // 10 != scale and not after:
            scale = read[1] // 10
    low, high = base + 2 * scale if not base else base + scale, base + 9 * scale
    return WordNumber(Fraction(low), Fraction(scale), Fraction(high), vague=True)


_ONES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORDS = (*_ONES, *_TENS, *_SCALES, "hundred", "dozen", "and", "a", "an", "point")
ENGLISH_NUMBER = re.compile(
    r"(?i)(?<![A-Za-z])(?:(?:" + "|".join(_WORDS) + r")(?:[ \t]+|-(?=[A-Za-z])|(?![A-Za-z])))+"
)
"""A run of English number words (validated and cut by `read_english`)."""


@dataclass(frozen=True)
class EnglishNumber:
    """A number read from a run of words: where it ends in the run (characters), its value, and
    whether it is the lone word "one" (counted only before a unit)."""

    end: int
    value: Fraction
    step: Fraction
    lone_one: bool


def read_english(run: str) -> list[tuple[int, EnglishNumber]]:
    """Every number in a run of number words, as (start in the run, number)."""
    words = [(m.start(), m.end(), m.group().lower()) for m in re.finditer(r"[A-Za-z]+", run)]
    found: list[tuple[int, EnglishNumber]] = []
    i = 0
    while i < len(words):
        read = _read_words(words, i)
        if read is None:
            i += 1
            continue
        j, number = read
        found.append((words[i][0], number))
        i = j
    return found


def _read_words(words: list[tuple[int, int, str]], i: int) -> tuple[int, EnglishNumber] | None:
    """The longest number starting at word i, and the index of the word after it."""
    total, current, step, last_scale = 0, 0, 1, 10**15
    last: str | None = None  # the kind of the last word: ones, teen, tens, hundred, scale, a, and
    best: tuple[int, EnglishNumber] | None = None
    decimals = ""
    for j in range(i, len(words)):
        w = words[j][2]
        if decimals and w in _SCALES and not total:
            factor = _SCALES[w]  # "twelve point four billion"
            number = (current + Fraction(int(decimals), 10 ** len(decimals))) * factor
            return j + 1, EnglishNumber(
                words[j][1], number, Fraction(factor, 10 ** len(decimals)), False
            )
        if last == "point" or decimals:
            if w not in _ONES or _ONES[w] >= 10:
                break
            decimals += str(_ONES[w])
        elif w in ("a", "an"):
            if j != i:
                break
            last = "a"
        elif w == "and":
            if last not in ("hundred", "scale"):
                break
            last = "and"
        elif w == "point":
            if last in ("a", "and"):
                break
            last = "point"  # "point one" = 0.1
        elif w in _ONES:
            v = _ONES[w]
            if last in ("ones", "teen", "a") or (last == "tens" and (v >= 10 or v == 0)):
                break
            current, step, last = current + v, 1, "ones" if v < 10 else "teen"
        elif w in _TENS:
            if last in ("ones", "teen", "tens", "a"):
                break
            current, step, last = current + _TENS[w], 10, "tens"
        elif w == "hundred":
            if last in (None, "hundred", "and") or current >= 100:
                break
            current, step, last = (current or 1) * 100, 100, "hundred"
        elif w == "dozen":
            if last not in ("a", "ones", "teen", "tens"):
                break
            current, step, last = (current or 1) * 12, 1, "ones"
        elif w in _SCALES:
            scale = _SCALES[w]
            if last in (None, "and") or scale >= last_scale:
                break
            total, current, step, last, last_scale = (
                total + (current or 1) * scale,
                0,
                scale,
                "scale",
                scale,
            )
        else:
            break
        if last in ("a", "and", "point") and not decimals:
            continue
        value = Fraction(total + current)
        if decimals:
            value += Fraction(int(decimals), 10 ** len(decimals))
        lone = j == i and w == "one"
        places = Fraction(1, 10 ** len(decimals)) if decimals else Fraction(step)
        best = (j + 1, EnglishNumber(words[j][1], value, places, lone))
    return best
