"""Find the letter a multiple-choice reply picks.

Rules, first that finds a letter wins (after the reasoning trace is removed):
answer_marker  the letter after the last "Answer:", "answer is", "correct option is" (and the
               like), decoration such as **, $, (, \\boxed{ and \\text{ skipped
boxed          the letter in the last \\boxed{…}
bare_letter    the whole reply is one letter, maybe in parentheses: "B", "(B)", "B)", or one choice
               copied as the question lists it: "B) 4.2 eV"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from proctor.extract.maths import boxed_content
from proctor.extract.reasoning import strip_reasoning
from proctor.types import Extraction

_MARKER = re.compile(
    r"(?:answer|correct\s+(?:option|choice)|choice|option)\s*(?:is|would\s+be|:)?\s*:?",
    re.IGNORECASE,
)
_DECORATION = re.compile(r"^(?:\s|\*|_|\$|\(|\[|\\boxed\{|\\text(?:bf)?\{|option\s|choice\s)*")

CHOICE_RULES: dict[str, str] = {
    "answer_marker": 'The answer is the letter right after the last "Answer:" or "the answer is".',
    "boxed": "The answer is the letter in the last \\boxed{…}.",
    "bare_letter": "The whole reply is one letter, or one choice copied with its letter.",
    "none": "No choice letter was found in the reply.",
}


def _letter_at(text: str, letters: str) -> str | None:
    rest = _DECORATION.sub("", text, count=1)
    m = re.match(rf"([{letters}])(?![A-Za-z0-9])", rest)
    return m.group(1) if m else None


def extract_choice(text: str, *, letters: str = "ABCD", choices: Sequence[str] = ()) -> Extraction:
    reply = strip_reasoning(text)
    for marker in reversed(list(_MARKER.finditer(reply))):
        letter = _letter_at(reply[marker.end() :], letters)
        if letter:
            return Extraction(letter, "answer_marker", True)
    inner = boxed_content(reply)
    if inner is not None:
        letter = _letter_at(inner, letters)
        if letter and len(re.sub(r"[^A-Za-z]", "", inner.replace("text", ""))) == 1:
            return Extraction(letter, "boxed", False)
    bare = reply.strip().strip(".*")
    m = re.fullmatch(rf"\(?([{letters}])\)?", bare)
    if m:
        return Extraction(m.group(1), "bare_letter", False)
    listed = re.fullmatch(rf"\(?([{letters}])\)\s*(.+)", bare, flags=re.DOTALL)
    if listed and choices:
        index = letters.index(listed.group(1))
        if index < len(choices) and " ".join(listed.group(2).split()) == " ".join(
            choices[index].split()
        ).rstrip("."):
            return Extraction(listed.group(1), "bare_letter", False, "the reply is one choice")
    return Extraction(None, "none", False, "empty reply" if not reply.strip() else "no letter")
