"""Scale words: the words and characters that multiply the number they follow (hundred, thousand,
million, dozen; bn/mn; "k" glued to digits; "m"/"b"/"T" glued to a money amount; 十百千万亿 and
their compounds). "兆" alone is ambiguous and never read (see `extract.units` for the decisions
the unit table and the scales share). There is no other table of scale words in proctor.
"""

from __future__ import annotations

import re

SCALE_WORDS: dict[str, int] = {
    "hundred": 10**2, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
    "dozen": 12,
}  # fmt: skip
"""English scale words after a number, matched case-insensitively, plural too ("millions")."""
ABBREVIATED_SCALES: dict[str, int] = {
    "bn": 10**9, "bln": 10**9, "mn": 10**6, "mln": 10**6, "tn": 10**12, "trn": 10**12,
}  # fmt: skip
GLUED_SCALES: dict[str, int] = {"k": 10**3, "K": 10**3}
"""Letters that scale the digits they are glued to ("12k")."""
MONEY_SCALES: dict[str, int] = {"m": 10**6, "M": 10**6, "b": 10**9, "B": 10**9, "T": 10**12}
"""Letters that scale a money amount they are glued to ("$5m", "$1.2B"); elsewhere "m" is metres."""
CN_SCALES: dict[str, int] = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "亿": 10**8}
"""Chinese scale characters; a run of them multiplies ("十万" = 10⁵, "万亿" = 10¹²)."""
CN_SCALE_RUN = "[十百千]?万亿|[十百千]?亿|[十百千]?万"
"""The runs of Chinese scale characters that are one scale with 万 or 亿 (十万, 千亿, 万亿; not
"亿万", a vague "myriads"); 十, 百 and 千 alone are scales too where a reader says so."""
AMBIGUOUS_SCALES: dict[str, str] = {
    "兆": "兆 is 10⁶ (the metric prefix of 兆瓦, 兆字节) or 10¹² (万亿 in Taiwan and older usage)",
}
"""Scale characters with two values: never read as either."""


def scale_named(word: str) -> int | None:
    """The multiplier a scale word names ("millions" → 10**6, "十万" → 10**5, "bn" → 10**9),
    None for a word that is no scale (and for the ambiguous 兆)."""
    w = word.strip()
    if not w:
        return None
    lower = w.casefold()
    if lower in SCALE_WORDS or (lower.endswith("s") and lower[:-1] in SCALE_WORDS):
        return SCALE_WORDS[lower.removesuffix("s") if lower not in SCALE_WORDS else lower]
    if w in ABBREVIATED_SCALES:
        return ABBREVIATED_SCALES[w]
    if re.fullmatch(CN_SCALE_RUN + "|[十百千]", w):
        value = 1
        for ch in w:
            value *= CN_SCALES[ch]
        return value
    return None
