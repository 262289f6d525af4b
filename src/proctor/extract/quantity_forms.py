"""Pure: the forms in a text that hold digits but are not quantities of an answer (dates,
times and labels: ids, codes, versions, phone numbers, locators) and the digit forms that are
ambiguous. The quantity reader (`extract/quantities.py`) sets these aside first; its module
docstring states the rules.

Decisions, stated once:
- A form claims its span: what a date, time or label covers is never read again as a number.
- Dates are checked (month 1–12, day 1–31, year 1000–2999) and stamped in ISO form
  ("2023-05-01", "2023-05", "--05-01" for a month and day); times as "HH:MM", 24-hour clock.
"""

from __future__ import annotations

import re
from typing import Literal

from proctor.extract.units import CURRENCY_CODES

FormKind = Literal["date", "time", "label", "ambiguous"]
Form = tuple[int, int, FormKind, str, str]
"""(start, end, kind, stamp, reason) of a date, time, label or ambiguous form."""

MONTH_NAMES = {
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
    (re.compile(r"(?<![A-Za-z])(?:ISO|IEC|IEEE|ANSI|DIN|GB/T|RFC|ASTM|JIS|Windows|iOS|Android|"
                r"macOS|iPhone|Python|Java|HTTP|USB|IPv)[ \t]?\d+(?:[.:/-]\d+)*(?![\d])"),
     "a standard or product name (ISO 9001, Windows 10)"),
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


def free(claimed: bytearray, start: int, end: int) -> bool:
    """No character of [start, end) is claimed yet."""
    return not any(claimed[start:end])


def claim(claimed: bytearray, start: int, end: int) -> None:
    claimed[start:end] = b"\x01" * (end - start)


def dates_and_times(t: str, claimed: bytearray) -> list[Form]:
    """The dates and times in normalised text `t`, claiming their spans."""
    found: list[Form] = []
    if not any(c.isdigit() for c in t):
        return found
    for pattern in _DATES:
        for m in pattern.finditer(t):
            stamp = _date_stamp(m)
            if stamp and free(claimed, m.start(), m.end()):
                claim(claimed, m.start(), m.end())
                found.append((m.start(), m.end(), "date", stamp, ""))
    for pattern in _TIMES:
        for m in pattern.finditer(t):
            stamp = _time_stamp(m)
            if stamp and free(claimed, m.start(), m.end()):
                claim(claimed, m.start(), m.end())
                found.append((m.start(), m.end(), "time", stamp, ""))
    return found


def labels(t: str, claimed: bytearray, found: list[Form]) -> None:
    """Add the labels and ambiguous digit forms of `t` to `found`, claiming their spans."""
    for pattern, why in _LABELS:
        for m in pattern.finditer(t):
            if "letters" in pattern.groupindex and m.group("letters") in _NOT_LABEL_LETTERS:
                continue
            if not free(claimed, m.start(), m.end()):
                continue
            claim(claimed, m.start(), m.end())
            kind: FormKind = "ambiguous" if why.startswith("ambiguous:") else "label"
            found.append((m.start(), m.end(), kind, "", why.removeprefix("ambiguous:")))


def _date_stamp(m: re.Match[str]) -> str:
    g = m.groupdict()
    year = int(g["y"]) if g.get("y") else None
    month = int(g["m"]) if g.get("m") else MONTH_NAMES.get((g.get("mn") or "")[:3].lower())
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
