"""Normalised text that remembers where each of its characters came from, so that what the
number reader finds can be shown as the span of the ORIGINAL text.

Decisions, stated once (the arithmetic extractor's `normalize.clean_text` makes the same choices
except where said):
- Each character is NFKC-normalised on its own (full-width digits, letters, "％", "．", "：" →
  ASCII), every minus look-alike becomes "-", spaced thousands groups written with no-break,
  figure, thin or narrow spaces become comma groups.
- Unlike `clean_text`: superscript digits and signs are kept (they are exponents: "10⁵"); en and
  em dashes are kept (they join ranges: "14–16"); the full-width comma "，" is kept, except
  between full-width digits in 3-digit groups ("１，２６０，５８２" is 1260582):
  "显示器，1299" is a comma and then a number; "$" is kept (it is money in prose; a "$…$"
  pair is left to the reader).
- Terminal escape sequences, markdown emphasis and code marks become spaces; LaTeX
  `\\times`, `\\cdot`, `\\%`, `{,}`, `\\frac{a}{b}`, `\\boxed{…}`/`\\text{…}` are
  rewritten as the arithmetic extractor does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

# The same rewrites the arithmetic extractor makes (one table), applied here keeping spans.
from proctor.extract.normalize import (
    _FRAC,
    _LATEX_SYMBOLS,
    _MINUS_LOOKALIKES,
    _SPACED_GROUPS,
    _UNWRAP,
)

_KEPT = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻–—，")
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "–", "\u2015": "—", "\u301c": "~"})
_FULL_DIGITS = frozenset("０１２３４５６７８９")
_FULL_GROUPS = re.compile(r"(?<=[０-９])，(?=[０-９]{3}(?![０-９]))")
_EMPHASIS = re.compile(r"(?<!\d)\*\*|\*\*(?!\d)|__|`")
"""Bold and code marks; "**" between digits is an exponent ("10**5")."""
_GROUP_SPACE = re.compile("[\u00a0\u2007\u2009\u202f]")
_TERMINAL = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""Terminal escape sequences (CSI, OSC, two-character): blanked, so "\\x1b[31m" is no "31 m"."""


@dataclass(frozen=True)
class MappedText:
    """`text` normalised; `origin[i]` is the index in `original` where text[i] came from
    (one more entry than `text` has characters: the end)."""

    original: str
    text: str
    origin: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of `original` that text[start:end] was made from."""
        return self.origin[start], self.origin[end] if end > start else self.origin[start]


def _char(ch: str) -> str:
    if ch in _KEPT or ch.isascii():
        return ch
    return unicodedata.normalize("NFKC", ch.translate(_DASHES)).translate(_MINUS_LOOKALIKES)


def map_text(text: str) -> MappedText:
    """`text` normalised for the number reader (see the module docstring), with its map."""
    if text.isascii():
        chars, origin = list(text), list(range(len(text) + 1))
    else:
        if _GROUP_SPACE.search(text):  # before NFKC, which makes these spaces plain ones
            text_in = _SPACED_GROUPS.sub(lambda m: _GROUP_SPACE.sub(",", m.group()), text)
        else:
            text_in = text
        full_commas = {m.start() for m in _FULL_GROUPS.finditer(text_in)}
        chars, origin = [], []
        for i, ch in enumerate(text_in):
            out = "," if i in full_commas else _char(ch)
            chars.extend(out)
            origin.extend([i] * len(out))
        origin.append(len(text))
    mapped = _Rewriter("".join(chars), origin)
    if "\x1b" in mapped.text:
        mapped.sub(_TERMINAL, lambda m: " " * len(m.group()))
    if "\\" in mapped.text or "{" in mapped.text:
        mapped.sub(_FRAC, lambda m: f"{m.group(1)}/{m.group(2)}")
        previous = None
        while previous != mapped.text:
            previous = mapped.text
            mapped.sub(_UNWRAP, lambda m: m.group(1))
        for needle, pattern, replacement in _LATEX_SYMBOLS:
            if needle in mapped.text:
                mapped.sub(pattern, _constant(replacement))
    if "*" in mapped.text or "_" in mapped.text or "`" in mapped.text:
        mapped.sub(_EMPHASIS, lambda m: " " * len(m.group()))
    return MappedText(text, mapped.text, tuple(mapped.origin))


def _constant(replacement: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: replacement


class _Rewriter:
    """A text being rewritten by regex substitutions, keeping each character's origin."""

    def __init__(self, text: str, origin: list[int]) -> None:
        self.text = text
        self.origin = origin

    def sub(self, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> None:
        out: list[str] = []
        origin: list[int] = []
        at = 0
        for m in pattern.finditer(self.text):
            out.append(self.text[at : m.start()])
            origin.extend(self.origin[at : m.start()])
            new = replace(m)
            out.append(new)
            origin.extend([self.origin[m.start()]] * len(new))
            at = m.end()
        if at == 0 and not out:
            return
        out.append(self.text[at:])
        origin.extend(self.origin[at:])
        self.text = "".join(out)
        self.origin = origin
