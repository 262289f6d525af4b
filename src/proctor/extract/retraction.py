"""Does the reply withdraw the answer it has just given? One sentence per rule:

- after its answer, a reply that says "wait", "actually", "correction", "oops", "scratch that",
  "on second thought", "I made a mistake", "that's wrong", "I miscounted" (or "不对", "错了",
  "算错", "更正", "纠正", "应为", "等等", "实际上", "其实", and their equivalents in the
  languages of `extract.retraction_phrases`) takes that answer back: it is not the reply's final
  answer;
- a later answer marker (a box, "the answer is", "Final answer:") after the withdrawal is the
  final answer, and the extraction rules already pick it, so only the text after the last stated
  answer is read here;
- a confirmation ("let me check: 3 × 6 = 18 ✓") withdraws nothing.

The grader makes a withdrawn answer with no clear final statement after it `unscored`, with the
phrase that withdrew it: never correct on the answer the reply took back.
"""

from __future__ import annotations

import re

from proctor.extract.retraction_phrases import OTHER_HINTS, OTHER_LANGUAGES

_ENGLISH = (
    r"(?<![\w'])wait(?=\s*[,.!:;?…—–-]|\s+(?:a\s+(?:moment|minute|second)|no|actually|i|i'm|let"
    r"|that|this|the|it|we|hmm|oh)\b)",
    r"\bactually\b",
    r"\bcorrection\b",
    r"\boops\b",
    r"\bscratch\s+that\b",
    r"\bon\s+second\s+thought\b",
    r"\b(?:i|we)\s+(?:have\s+|just\s+)?(?:made|make)\s+(?:a|an)\s+(?:\w+\s+)?(?:mistake|error)\b",
    r"\bmy\s+(?:mistake|bad|error)\b",
    r"\b(?:i|we)\s+(?:was|were)\s+wrong\b",
    r"\b(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+(?:right|correct))\b",
    r"\b(?:i|we)\s+(?:miscounted|miscalculated|double[- ]counted|counted\s+[^.\n]{0,40}?\btwice)\b",
)
_CHINESE = r"不对|错了|算错|弄错|有误|更正|纠正|应为|应该为|等等|等一下|实际上|其实"
_RETRACTION = re.compile("|".join((*_ENGLISH, _CHINESE, *OTHER_LANGUAGES)), re.IGNORECASE)
_HINTS = (
    "wait", "actual", "correct", "oops", "scratch", "second", "mistake", "error", "bad",
    "wrong", "miscount", "miscalc", "counted", "不对", "错", "有误", "更正", "纠正", "应",
    "等", "实际", "其实", *OTHER_HINTS,
)  # fmt: skip
"""Every match of _RETRACTION contains one of these (lower-cased): a text without any is not
searched (most replies end right after their answer)."""


def withdrawal(text: str, start: int = 0) -> str | None:
    """The phrase with which `text` (from `start`) takes back an answer stated before it, or
    None when it withdraws nothing."""
    tail = text[start:]
    lowered = tail.lower()
    if not any(hint in lowered for hint in _HINTS):
        return None
    m = _RETRACTION.search(tail)
    return m.group() if m else None
