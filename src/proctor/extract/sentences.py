"""Sentences and their length, for Chinese, English and text that mixes them.

Decisions, stated once:
- A sentence ends at 。！？；… (a run of them, e.g. "……" or "！？", counts once), at ASCII
  ! ? ; and at a full stop "." followed by a space, a line end, a closing quote or a CJK
  character — not in "3.5", not after a few common abbreviations ("e.g.", "Dr."), and not after
  a bare list number at the start of a sentence ("1. "). Closing quotes and brackets right after
  the end mark belong to the sentence they close. A line break ends a sentence too.
- Length is counted the way word processors count Chinese: each CJK character is 1, every other
  word (a run of letters or digits, with inner ' - . kept, so "don't", "3.5" and "2023" are one
  word each) is 1, and punctuation and spaces are 0. So a Chinese sentence is measured in
  characters and an English one in words, by the same rule.
"""

from __future__ import annotations

import re

_END_MARKS = "。！？；…!?;"
_CLOSERS = "”’\"'）)」』】》〉]"
_CJK = (
    "\u3040-\u30ff"  # kana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0003134f"  # extensions B–H
)
_CJK_CHAR = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "st", "no", "fig", "approx"}
)
_LIST_NUMBER = re.compile(r"\s*\d{1,3}\Z")


def _is_cjk(ch: str) -> bool:
    return bool(_CJK_CHAR.fullmatch(ch))


def _full_stop_ends(text: str, i: int, current: str) -> bool:
    """Whether the "." at text[i] ends a sentence (see the module docstring)."""
    after = text[i + 1] if i + 1 < len(text) else ""
    if after and not (after.isspace() or after in _CLOSERS or after == "." or _is_cjk(after)):
        return False
    if _LIST_NUMBER.fullmatch(current):
        return False
    words = current.split()
    last = words[-1].lower().rstrip(".") if words else ""
    return last not in _ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, trimmed, in order; pieces with nothing to count are dropped."""
    sentences: list[str] = []
    current: list[str] = []
    i, n = 0, len(text)

    def close() -> None:
        sentence = "".join(current).strip()
        current.clear()
        if sentence and sentence_length(sentence) > 0:
            sentences.append(sentence)

    while i < n:
        ch = text[i]
        if ch == "\n":
            close()
            i += 1
            continue
        ends = ch in _END_MARKS or (ch == "." and _full_stop_ends(text, i, "".join(current)))
        current.append(ch)
        i += 1
        if ends:
            while i < n and (text[i] in _END_MARKS or text[i] == "."):
                current.append(text[i])
                i += 1
            while i < n and text[i] in _CLOSERS:
                current.append(text[i])
                i += 1
            close()
    close()
    return sentences


def text_length(text: str) -> int:
    """CJK characters plus other words (see the module docstring)."""
    cjk = len(_CJK_CHAR.findall(text))
    words = len(_WORD.findall(_CJK_CHAR.sub(" ", text)))
    return cjk + words


def sentence_length(sentence: str) -> int:
    return text_length(sentence)
