"""Finding phrases and specific numbers in free text, Chinese or English.

Decisions, stated once:
- Text and phrase are folded the same way: NFKC (full-width → ASCII), case-folded, whitespace
  runs → one space. `find_phrase` gives the spans it found in the original text.
- A phrase without Latin letters (Chinese, numbers, symbols) is found regardless of spaces:
  "增长 12 %" holds "增长12%". A phrase with Latin letters keeps its spaces and must stand as whole
  words at its Latin ends: "art" is not found in "start".
- A phrase that starts or ends with a digit does not match inside a longer number: "12%" is not
  found in "112%", "5" is not found in "5.5", "299" is not found in "1,299". A comma or a full
  stop before it that follows no digit is punctuation: "显示器，1299 元" holds "1299".
- Specific numbers (`specific_numbers`): every number written in digits (normalised as the
  arithmetic extractor reads them, so "1,200" is 1200), every Chinese numeral with a magnitude
  ("五百万", "三十", "两千"), and English number words with a magnitude ("five million",
  "a hundred").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from collections.abc import Iterable

from proctor.extract.normalize import clean_text, find_numbers

_SPACES = re.compile(r"\s+")
_LATIN = re.compile(r"[a-z]")
_ALNUM = re.compile(r"[a-z0-9]")
_CHINESE_NUMERAL = re.compile(
    r"[零〇一二三四五六七八九两]+[十百千万亿][零〇一二三四五六七八九十百千万亿两]*"
)
_CHINESE_TENS = re.compile(r"(?<![零〇一二三四五六七八九两十百千万亿])十[一二三四五六七八九]")
_ENGLISH_NUMBER = re.compile(
    r"\b(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|several)[\s-]+"
    r"(?:hundred|thousand|million|billion|trillion)\b",
    re.IGNORECASE,
)


def fold(text: str) -> str:
    """NFKC, case-folded, whitespace runs → one space, trimmed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@lru_cache(maxsize=32)
def _fold_map(text: str, drop_spaces: bool) -> tuple[str, tuple[int, ...]]:
    """`text` folded character by character (as `fold`, spaces dropped when asked), and for each
    folded character the index of the original character it came from. Cached: one reply is
    searched for many phrases (every refusal phrasing, every synonym of every point)."""
    out: list[str] = []
    origin: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            space = True
            continue
        if space and out and not drop_spaces:
            out.append(" ")
            origin.append(i - 1)
        space = False
        for piece in unicodedata.normalize("NFKC", ch).casefold():
            out.append(piece)
            origin.append(i)
    return "".join(out), tuple(origin)


def _pattern(phrase: str) -> re.Pattern[str] | None:
    p = fold(phrase)
    if not p:
        return None
    spaced = bool(_LATIN.search(p))
    if not spaced:
        p = p.replace(" ", "")
    body = re.escape(p)
    if spaced:
        body = body.replace(r"\ ", r"\s+")
    head = r"(?<![a-z0-9])" if _ALNUM.match(p[0]) and spaced else ""
    tail = r"(?![a-z0-9])" if _ALNUM.match(p[-1]) and spaced else ""
    if p[0].isdigit():
        head = r"(?<![0-9])(?<![0-9][.,])"
    if p[-1].isdigit():
        tail = r"(?![0-9]|[.,][0-9])"
    return re.compile(head + body + tail)


def find_phrase(text: str, phrase: str) -> list[tuple[int, int]]:
    """The (start, end) spans in `text` where `phrase` occurs (see the module docstring), in
    order; none for an empty phrase."""
    pattern = _pattern(phrase)
    if pattern is None:
        return []
    folded, origin = _fold_map(text, drop_spaces=not _LATIN.search(fold(phrase)))
    return [
        (origin[m.start()], origin[m.end() - 1] + 1)
        for m in pattern.finditer(folded)
        if m.end() > m.start()
    ]


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text` (see the module docstring). An empty phrase never does."""
    return bool(find_phrase(text, phrase))


def first_phrase(text: str, phrases: Iterable[str]) -> str | None:
    """The first of `phrases` that occurs in `text`, or None."""
    for phrase in phrases:
        if contains_phrase(text, phrase):
            return phrase
    return None


def specific_numbers(text: str) -> list[str]:
    """Every specific number in `text` (see the module docstring), as a comparable key: the
    canonical value for digits ("1200", "12.5", "3/4"), the numeral itself otherwise."""
    found = [token.canonical for _, _, token in find_numbers(clean_text(text))]
    folded = unicodedata.normalize("NFKC", text)
    found += [m.group() for m in _CHINESE_NUMERAL.finditer(folded)]
    found += [m.group() for m in _CHINESE_TENS.finditer(folded)]
    found += [
        " ".join(m.group().lower().replace("-", " ").split())
        for m in _ENGLISH_NUMBER.finditer(folded)
    ]
    return found
