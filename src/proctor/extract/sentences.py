"""Sentences, clauses and their length, for Chinese, English and text that mixes them.

Decisions, stated once:
- A sentence ends at 。！？；… and ｡ (a run of them, e.g. "……" or "！？", counts once), at ASCII
  ! ? ; and at a full stop "." or "．" followed by a space, a line end, a closing quote or a CJK
  character. Closing quotes and brackets right after the end mark belong to the sentence they
  close. A line break ends a sentence too.
- What does not end a sentence, because a wrong split makes sentences shorter and so could pass
  a `max_sentence` that the reply breaks (joining is the safe side):
  - a decimal point ("3.5"), and a bare list number at the start of a sentence ("1. ");
  - a single ".", "!" or "?" (quotes and brackets after it included) followed by a lowercase
    Latin word: "9 a.m. and", "the U.S. usually", "'This is great.' she said";
  - any end mark inside brackets ( ) （ ） 《 》 [ ] that close later on the same line;
  - a title ("Mr.", "Dr.", "Prof.", "St.", "e.g.", "vs." — `NEVER_FINAL`), whatever follows;
  - an abbreviation before a number ("No. 4471", "p. 55", "Fig. 3" — `BEFORE_NUMBER`);
  - an abbreviation that may end a sentence ("etc.", "a.m.", "Inc.", "U.S.", any dotted
    initialism, a single capital initial as in "Albert I. Jones" — `MAY_END`) unless the next
    word is one that starts sentences (`SENTENCE_STARTERS`: "We", "The", "Please", "How"…), a CJK
    character, or nothing: "I live in the U.S. How about you?" is two sentences, "the U.S.
    Government" one.
- Clauses (`clauses`): a sentence cut at , ， ; ； : ： —, around a bracketed aside ( ) （ ）, and
  before a contrast word (but,
  however, although, whereas, 但, 但是, 可是, 而是, 然而, 不过). A negation or a hedge reaches to
  the end of its clause, not further.
- Length is counted the way word processors count Chinese: each CJK character is 1, every other
  word is 1, and punctuation and spaces are 0. A word is a run of letters or digits with inner
  ' ’ - . kept, a thousands separator "," / "，" kept before a group of three digits and ":" kept
  between digits, so "don't", "3.5", "2023", "$1,500", "１，２９９", "10:30", "3.5%", "50km" and
  "a.m." are one word each, and "1,2,3" is three. So a Chinese sentence is measured in characters
  and an English one in words, by the same rule.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

_END_MARKS = "。！？；…｡!?;"
_STOPS = ".．"
_CLOSERS = "”’\"'）)」』】》〉]"
_OPENERS = {"(": ")", "（": "）", "《": "》", "[": "]"}
_CJK = (
    "\u3040-\u30ff"  # kana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0003134f"  # extensions B–H
)
CJK_CHAR = re.compile(f"[{_CJK}]")
"""One CJK character (ideographs, kana, hangul): what counts 1 in a length."""
_WORD = re.compile(
    r"(?:[A-Z]{1,3}\$)?[^\W_]+"
    r"(?:(?:['’.\-]|(?<=\d)[,，](?=\d{3}(?!\d))|(?<=\d)[:：](?=\d))[^\W_]+)*"
)
_LIST_NUMBER = re.compile(r"\s*\d{1,3}\Z")
_LAST_WORD = re.compile(r"([^\s(（\"“'‘]+)\Z")
_NEXT_WORD = re.compile(r"[\s\"“'‘(（]*([^\s]*)")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]\Z")

NEVER_FINAL = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "rev", "gen", "col", "capt",
        "lt", "sgt", "e.g", "i.e", "cf", "vs", "approx", "ca",
    }
)  # fmt: skip
"""Abbreviations (lower-cased, without the final ".") after which a sentence never ends."""

BEFORE_NUMBER = frozenset({"no", "nos", "nr", "p", "pp", "fig", "figs", "vol", "ch", "art", "sec"})
"""Abbreviations that do not end a sentence when a number follows ("No. 4471", "p. 55")."""

MAY_END = frozenset(
    {
        "etc", "a.m", "p.m", "inc", "ltd", "co", "corp", "plc", "llc", "u.s", "u.k", "e.u",
        "u.n", "u.s.a", "et al", "al", "dept", "est",
    }
)  # fmt: skip
"""Abbreviations that end a sentence only before a word of `SENTENCE_STARTERS` (or CJK, or the
end of the text); dotted initialisms ("N.A.S.A.") and single capital initials act the same."""

SENTENCE_STARTERS = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "it's", "we", "we'll",
        "we're", "you", "your", "i", "i'm", "i'll", "he", "she", "they", "our", "my", "his",
        "her", "their", "there", "here", "please", "thank", "thanks", "how", "what", "why",
        "when", "where", "who", "which", "if", "in", "on", "at", "for", "after", "before", "then",
        "so", "but", "and", "also", "however", "note", "call", "contact", "each", "every", "all",
        "no", "not", "yes", "did", "do", "does", "is", "are", "was", "were", "can", "could",
        "will", "would", "should", "has", "have", "had", "let", "let's", "see", "from", "to",
        "most", "many", "some", "any", "one", "two", "both", "only", "even", "during", "since",
        "while", "as", "with", "once", "nothing", "everyone",
    }
)  # fmt: skip
"""Words (lower-cased) that start sentences often and abbreviated names seldom."""

_CONTRAST = re.compile(
    r"(?:(?<=[\s,，;；])|(?<=^))(?:but|however|although|though|whereas)\b"
    r"|但是|但|可是|而是|然而|不过",
    re.IGNORECASE,
)
_CLAUSE_MARKS = ",，;；:：—"


def _is_cjk(ch: str) -> bool:
    return bool(CJK_CHAR.fullmatch(ch))


def _next_word(text: str, i: int) -> str:
    match = _NEXT_WORD.match(text, i)
    return match.group(1) if match else ""


_TAIL = 64
"""How much of the sentence before a full stop is read to find the word it ends (a word longer
than that is no abbreviation): bounded, so a long sentence is split in linear time."""


def _stop_ends(text: str, i: int, start: int) -> bool:
    """Whether the "." or "．" at text[i] ends the sentence begun at `start` (see the module
    docstring)."""
    after = text[i + 1] if i + 1 < len(text) else ""
    if after and not (after.isspace() or after in _CLOSERS or after in _STOPS or _is_cjk(after)):
        return False
    current = text[max(start, i - _TAIL) : i]
    if i - start <= _TAIL and _LIST_NUMBER.fullmatch(current):
        return False
    match = _LAST_WORD.search(current)
    last = match.group(1).rstrip(".") if match else ""
    lower = last.lower()
    if lower in NEVER_FINAL:
        return False
    j = i + 1
    while j < len(text) and text[j] in _STOPS:
        j += 1
    following = _next_word(text, j)
    if lower in BEFORE_NUMBER and following[:1].isdigit():
        return False
    if lower in MAY_END or _INITIALISM.fullmatch(last) or (len(last) == 1 and last.isupper()):
        head = following.rstrip(",.;:!?").lower()
        return not following or _is_cjk(following[0]) or head in SENTENCE_STARTERS
    return True


_BRACKET_REACH = 2000
"""How far ahead a closing bracket is looked for (the same line, and at most this far)."""


def _closes_later(text: str, i: int, opener: str) -> bool:
    line = text[i : i + _BRACKET_REACH]
    end = line.find("\n")
    return _OPENERS[opener] in (line if end < 0 else line[:end])


def _lowercase_follows(text: str, j: int) -> bool:
    """Whether a lowercase Latin word follows the end mark that ends before text[j]."""
    while j < len(text) and text[j] in _CLOSERS:
        j += 1
    if j >= len(text) or not text[j].isspace() or text[j] == "\n":
        return False
    word = _next_word(text, j)
    return bool(word) and word[0].isascii() and word[0].islower()


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, trimmed, in order; pieces with nothing to count are dropped."""
    return [text[a:b].strip() for a, b in sentence_spans(text)]


@lru_cache(maxsize=32)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of `text` (see `split_sentences`). Cached: the scorers of a
    reply (claims, names, lengths) read the same text's sentences again and again."""
    spans: list[tuple[int, int]] = []
    start = 0
    depth: list[str] = []
    i, n = 0, len(text)

    def close(end: int) -> None:
        nonlocal start
        piece = text[start:end]
        if piece.strip() and text_length(piece) > 0:
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        start = end

    while i < n:
        ch = text[i]
        if ch == "\n":
            depth.clear()
            close(i)
            i += 1
            start = i
            continue
        if ch in _OPENERS and _closes_later(text, i + 1, ch):
            depth.append(_OPENERS[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        ends = ch in _END_MARKS or (ch in _STOPS and _stop_ends(text, i, start))
        i += 1
        if not ends or depth:
            continue
        single = i >= n or (text[i] not in _END_MARKS and text[i] not in _STOPS)
        while i < n and (text[i] in _END_MARKS or text[i] in _STOPS):
            i += 1
        if single and ch in ".!?" and _lowercase_follows(text, i):
            continue
        while i < n and text[i] in _CLOSERS:
            i += 1
        close(i)
    close(n)
    return tuple(spans)


@dataclass(frozen=True)
class Clause:
    """A clause of a sentence: its span in the text, and the span of its sentence."""

    start: int
    end: int
    sentence_start: int
    sentence_end: int


@lru_cache(maxsize=32)
def clauses(text: str) -> tuple[Clause, ...]:
    """The clauses of every sentence of `text`, in order (see the module docstring)."""
    found: list[Clause] = []
    for s_start, s_end in sentence_spans(text):
        cuts = [s_start]
        for i in range(s_start, s_end):
            if text[i] in _CLAUSE_MARKS or text[i] in "（(）)":
                cuts.append(i + 1 if text[i] not in "（(" else i)
        for m in _CONTRAST.finditer(text, s_start, s_end):
            cuts.append(m.start())
        for a, b in pairwise([*sorted(set(cuts)), s_end]):
            if text[a:b].strip():
                found.append(Clause(a, b, s_start, s_end))
    return tuple(found)


@lru_cache(maxsize=32)
def _clause_starts(text: str) -> tuple[int, ...]:
    return tuple(c.start for c in clauses(text))


def clause_at(text: str, at: int) -> Clause | None:
    """The clause of `text` that holds position `at`, or None (between clauses)."""
    parts = clauses(text)
    i = bisect_right(_clause_starts(text), at) - 1
    if i >= 0 and parts[i].start <= at < parts[i].end:
        return parts[i]
    return None


def text_length(text: str) -> int:
    """CJK characters plus other words (see the module docstring)."""
    cjk = len(CJK_CHAR.findall(text))
    words = len(_WORD.findall(CJK_CHAR.sub(" ", text)))
    return cjk + words


def sentence_length(sentence: str) -> int:
    return text_length(sentence)
