"""Finding phrases, and the numbers a text states, in free text, Chinese or English.

Decisions, stated once:
- Text and phrase are folded the same way: NFKC (full-width → ASCII), case-folded, whitespace
  runs → one space. `find_phrase` gives the spans it found in the original text.
- A phrase without Latin letters (Chinese, numbers, symbols) is found regardless of spaces:
  "增长 12 %" holds "增长12%". A phrase with Latin letters keeps its spaces and must stand as whole
  words at its Latin ends: "art" is not found in "start". A space between a letter and a digit
  is optional: "BA 117" is found in "BA117", "Room 6A" in "Room6A".
- A phrase that starts or ends with a digit does not match inside a longer number: "12%" is not
  found in "112%", "5" is not found in "5.5", "299" is not found in "1,299". A comma or a full
  stop before it that follows no digit is punctuation: "显示器，1299 元" holds "1299".
- Numbers are read by the one reader of quantities (`proctor.extract.quantities`): `stated`
  is every number, range, date and time a text states (labels such as "A-1299", "第二版" or
  "No. 5" are not); two of them are the same (`same_quantity`) when the reader compares them
  equal (`compare_quantities`, units converted exactly) or, for dates and times, when their
  stamps agree ("6月15日" and "2024年6月15日").
- `find_point` finds a phrase as `find_phrase` does and, when the phrase states one number,
  also wherever the text states that number in any format with the phrase's other words
  around it: "1299 元" is found in "1,299 元", "¥1299" and "退款 1299"; "$45" in "$45.00", "USD 45"
  and "forty-five dollars"; "3 个工作日" in "三个工作日" but not in "13 个工作日".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from proctor.extract.quantities import Quantity, find_quantities
from proctor.extract.quantity_match import compare_quantities

_SPACES = re.compile(r"\s+")
_CODE_SPACE = re.compile(r"(?<=[a-z])\\ (?=[0-9])|(?<=[0-9])\\ (?=[a-z])")
"""An escaped space between a letter and a digit of a phrase: optional ("BA 117" is "BA117")."""
_LATIN = re.compile(r"[a-z]")
_ALNUM = re.compile(r"[a-z0-9]")


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
        body = _CODE_SPACE.sub(r"\\s*", body).replace(r"\ ", r"\s+")
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


_STATED = ("number", "range", "date", "time")


def stated(text: str) -> list[Quantity]:
    """Every number, range, date and time `text` states, left to right (see the docstring)."""
    return list(_stated(text))


@lru_cache(maxsize=64)
def _stated(text: str) -> tuple[Quantity, ...]:
    """Cached: a reply is searched for every number of every point, and read once."""
    return tuple(q for q in find_quantities(text) if q.kind in _STATED)


def _day(stamp: str) -> str:
    return stamp[4:] if len(stamp) == 10 and stamp[4] == "-" else stamp[1:]


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Whether `a` and `b` state the same value (see the module docstring)."""
    if a.kind in ("date", "time") or b.kind in ("date", "time"):
        if a.kind != b.kind:
            year = a if a.kind != "date" else b
            date = b if year is a else a
            return date.stamp == str(year.value) and year.year_like and len(date.stamp) == 4
        if a.stamp == b.stamp:
            return True
        partial = [s for s in (a.stamp, b.stamp) if s.startswith("--")]
        return a.kind == "date" and len(partial) == 1 and _day(a.stamp) == _day(b.stamp)
    return compare_quantities(a, b).agreement == "same"


def _around(text: str, start: int, end: int, before: str, after: str) -> tuple[int, int] | None:
    """The span of `before` + text[start:end] + `after` when the words `before` and `after`
    stand right around text[start:end] (matched as phrases are), else None."""
    a, b = start, end
    if before.strip():
        window = text[max(0, start - 4 * len(before) - 8) : start]
        hits = [s for s in find_phrase(window, before) if not window[s[1] :].strip()]
        if not hits:
            return None
        a = start - len(window) + hits[-1][0]
    if after.strip():
        window = text[end : end + 4 * len(after) + 8]
        hits = [s for s in find_phrase(window, after) if not window[: s[0]].strip()]
        if not hits:
            return None
        b = end + hits[0][1]
    return a, b


def find_point(text: str, phrase: str) -> list[tuple[int, int]]:
    """Where `text` states `phrase`: its spans as `find_phrase` finds them and, when the phrase
    states one number, every place the text states that number in any format with the phrase's
    other words around it (see the module docstring), in order."""
    spans = set(find_phrase(text, phrase))
    numbers = stated(phrase)
    if len(numbers) == 1:
        (q,) = numbers
        before, after = phrase[: q.start], phrase[q.end :]
        for r in stated(text):
            if same_quantity(q, r):
                span = _around(text, r.start, r.end, before, after)
                if span is not None:
                    spans.add(span)
    return sorted(spans)
