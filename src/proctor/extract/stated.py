"""What the words around a number in an answer sentence do to it, one sentence each:

- a minus sign, "minus", "negative" or "负" at the start of an answer is its sign, even spaced
  ("Final answer: - 5" is -5);
- a number after "not", "isn't", "rather than" or "instead of" (or "et non", "plutôt que",
  "statt", "nicht", "y no", "e non", "а не", "不是", "而不是", "而非") is a value the reply
  rejects, never its answer;
- two different numbers joined by "or" ("18 or 19") are a hedge, not an answer;
- a scale word after a number ("5 million", "178 thousand", "18万") multiplies it, so the bare
  number is not what the reply says;
- a number in a time or place phrase ("in the first 15 minutes", "d'ici 12 mois") after
  another number in the same sentence is a detail of it, not the answer;
- an answer that is nothing but digits in groups of three separated by single spaces is one
  number ("85 660 413"); anywhere else a space separates numbers.
"""

from __future__ import annotations

import itertools
import re

from proctor.extract.normalize import NumberToken
from proctor.extract.scales import AMBIGUOUS_SCALES, CN_SCALES, SCALE_WORDS

Span = tuple[int, int, NumberToken]

_LEADING_SIGN = re.compile(
    r"^([ \t:=*]*)(?:-[ \t]+|(?:minus|negative)[ \t]+|负[ \t]*)(?=\d)", re.IGNORECASE
)
REJECTING = (
    r"(?:\b(?:not|isn't|is not|never|rather\s+than|instead\s+of|et\s+non|et\s+pas|plut[ôo]t\s+que"
    r"|statt|anstatt|nicht|y\s+no|en\s+lugar\s+de|e\s+n[ãa]o|em\s+vez\s+de|e\s+non|invece\s+di"
    r"|а\s+не|вместо|en\s+niet|in\s+plaats\s+van|bukan|chứ\s+không\s+phải|không\s+phải"
    r"|न\s+कि|وليس|بدلا\s+من|بدلاً\s+من)|而不是|不是|而非|并非|而不)"
)
"""The words before a value that reject it: "not", "rather than", "et non", "statt", "而不是",
"en niet", "bukan", "chứ không phải", "न कि", "وليس"."""
_REJECTING = re.compile(REJECTING + r"[ \t]*$", re.IGNORECASE)
_HEDGE = re.compile(
    r"[ \t]*,?[ \t]*(?:or(?:[ \t]+(?:maybe|perhaps|possibly))?|或者?|or/and|か|또는|oder|ou|o|или"
    r"|atau|hoặc|veya|या|أو)[ \t]*"
)
HEDGE_WORDS = (
    "or",
    "或",
    "か",
    "또는",
    "oder",
    "ou",
    "o",
    "или",
    "atau",
    "hoặc",
    "veya",
    "या",
    "أو",
)
"""The words that join two values as alternatives, in the languages answers come in (Dutch "of"
is left out: "12 of 13" is English for a part of a whole)."""
_SCALE = re.compile(
    r"[ \t]*(?:(?:"
    + "|".join(SCALE_WORDS)
    + r")s?\b|["
    + "".join(CN_SCALES)
    + "".join(AMBIGUOUS_SCALES)
    + "])",
    re.IGNORECASE,
)
"""A scale word of the unit table (兆 too: either of its values makes the number not bare)."""


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    # Every match of the pattern it guards contains one of `words` (lower-cased): a text without
    # any cannot match, so the regex is skipped (grading reads millions of short answer lines).
    lowered = text.lower()
    for word in words:  # noqa: SIM110 (a loop of `in` is the fastest test here)
        if word in lowered:
            return True
    return False


_SPACED_THOUSANDS = re.compile(r"-?[1-9]\d{0,2}(?: \d{3})+(?:\.\d+)?")


def spaced_thousands(answer: str) -> str | None:
    """ "85 660 413" → "85,660,413" when the whole answer is one space-grouped number."""
    text = answer.strip()
    return text.replace(" ", ",") if _SPACED_THOUSANDS.fullmatch(text) else None


def signed(segment: str) -> str:
    """`segment` with a sign word at its start written as "-" against the number."""
    if not _mentions(segment, ("-", "minus", "negative", "负")):
        return segment
    return _LEADING_SIGN.sub(r"\1-", segment, count=1)


_REJECTING_HINTS = (
    "not", "n't", "never", "rather", "instead", "non", "pas", "plut", "statt", "nicht", "no",
    "lugar", "não", "nao", "vez", "invece", "не", "вместо", "不是", "而非", "并非", "而不",
)  # fmt: skip


def rejected(text: str, start: int) -> bool:
    """Whether the number starting at `start` follows a word that rejects it."""
    before = text[max(0, start - 24) : start]
    if not _mentions(before, _REJECTING_HINTS):
        return False
    return _REJECTING.search(before) is not None


def hedge(text: str, numbers: list[Span]) -> str | None:
    """ "A or B": the hedge as written when two numbers of different value are joined by "or"."""
    if len(numbers) < 2 or not _mentions(text, HEDGE_WORDS):
        return None
    for (_, end, first), (start, stop, second) in itertools.pairwise(numbers):
        if first.value != second.value and _HEDGE.fullmatch(text[end:start]):
            return text[numbers[0][0] : stop]
    return None


def scale_after(text: str, end: int) -> str | None:
    """The scale word written right after a number that ends at `end`, if any."""
    m = _SCALE.match(text, end)
    return m.group().strip() if m else None


_DETAIL = re.compile(
    r"(?:\b(?:in|within|after|over|during|d['’]ici|dans|après|pendant|nach|innerhalb|binnen"
    r"|durante|después\s+de|dentro\s+de|en|entro|tra|fra|negli|nei|nelle|em|nos|nas|через)"
    r"\s+(?:(?:the|les?|la|des|den|dem|der|el|los|las|os|as|il|i)\s+)?(?:(?:next|first|last"
    r"|prochains?|premiers?|derniers?|dernières?|nächsten|ersten|letzten|próximos?|primeros?"
    r"|últimos?|últimas?|prossimi|primi|ultimi|ultime|primeiros?)\s+)?)$",
    re.IGNORECASE,
)
"""The words before a number in a time or place phrase, in English, French, German, Spanish,
Italian, Portuguese and Russian ("in the first", "dans les", "in den letzten", "en los últimos",
"negli ultimi", "nos últimos")."""


def in_detail(text: str, start: int) -> bool:
    """Whether the number starting at `start` is in a time or place phrase ("in 12 months",
    "d'ici 12 mois", "in the first 15 minutes", "en los últimos 15 minutos"): a detail of a
    sentence that states another number, not its answer."""
    return _DETAIL.search(text, max(0, start - 40), start) is not None
