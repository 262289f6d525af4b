"""The two reply shapes most numeric answers take, recognised without running the rules.

A reply that is plain ASCII with no reasoning tag ("<") and no decoration character
(`normalize.DECORATION`) reads the same after `strip_reasoning`, `normalize_text` and
`clean_text`. For such a reply:

- "Final answer: N" as its last line (N a plain number: optional "-", digits without a leading
  zero, optional ".digits"; nothing after it) is what `final_answer_line` finds: no marker can
  match after it (only digits follow, and every marker has a letter, "#" or a Chinese character),
  none before it can reach into it (a marker never spans a letter), its segment " N" has no
  sentence stop, sign word, rejecting word, second number nor scale word, so the answer is N, from
  the last marker, with no note;
- a reply that is N alone has no marker nor "Answer:" line, and is what `bare_answer` finds.

Anything else is None, and the rules decide (`extract_answer`). Where this answers it must equal
the rules' answer: the tests walk the case tables and generated near misses through both.
"""

from __future__ import annotations

import re

from proctor.extract.normalize import DECORATION

_PLAIN_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]{0,39})(?:\.[0-9]{1,40})?", re.ASCII)
_FINAL = "Final answer: "


def plain_answer(text: str) -> tuple[str, str] | None:
    """(answer, extraction rule) for a reply of one of the two plain shapes, else None."""
    if not text.isascii() or "<" in text or DECORATION.search(text) is not None:
        return None
    if _PLAIN_NUMBER.fullmatch(text):
        return text, "bare_answer"
    line = text.rfind("\n" + _FINAL)
    if line >= 0:
        start = line + 1 + len(_FINAL)
    elif text.startswith(_FINAL):
        start = len(_FINAL)
    else:
        return None
    if _PLAIN_NUMBER.fullmatch(text, start):
        return text[start:], "final_answer_line"
    return None
