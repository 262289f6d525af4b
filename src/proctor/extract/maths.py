"""Find the final answer of a maths reply: named rules, strongest first; the first that finds an
answer names it.

boxed         the content of the last \\boxed{…} (or \\fbox{…}), braces balanced
final_answer  after the last "final answer is" / "Final Answer:" / "the answer is" / a line
              starting "Answer:", up to the end of that sentence (a $…$ span right after the
              marker is taken whole)
hash_marker   after the last "#### " (GSM8K's own format)
last_number   fallback for numeric answers only: the last number in the reply

The reasoning trace (`<think>…</think>`) is removed first, and so is anything after a line that
starts a new question ("Q:", "Question:"), which a model continuing a few-shot pattern writes
and which is not its answer. `format_ok` is true when the rule is the one the prompt asked for.
"""

from __future__ import annotations

import re

from proctor.extract.normalize import clean_text, find_numbers, normalize_text
from proctor.extract.reasoning import strip_reasoning
from proctor.types import Extraction

_NEXT_QUESTION = re.compile(r"\n[ \t]*(?:Q|Question|Problem)[ \t]*:", re.IGNORECASE)
_TEXT_MARKER = re.compile(
    r"(?:final\s+answer\s*(?:is|:)|the\s+(?:final\s+)?answer\s+is|^[ \t>*#_]*answer[*_]*[ \t]*:)"
    r"[ \t*_]*:?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_HASH = re.compile(r"^[ \t]*####[ \t]*(.*)$", re.MULTILINE)
_MATH_SPAN = re.compile(r"^\s*(?:\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\])", re.DOTALL)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\s+(?:I hope|because|since|which|so that)\b", re.I)
_STRIP = " \t\r\n.,;:*_$"

MATHS_RULES: dict[str, str] = {
    "boxed": "The answer is the content of the last \\boxed{…} in the reply.",
    "final_answer": 'The answer follows the last "final answer is", "Final Answer:", "the'
    ' answer is" or line starting "Answer:", up to the end of that sentence.',
    "hash_marker": 'The answer follows the last "####" (GSM8K\'s format).',
    "last_number": "Fallback for numeric answers: the last number in the reply.",
    "none": "No extraction rule found an answer in the reply.",
}


def visible_reply(text: str) -> str:
    """The reply without its reasoning trace and without any invented next question."""
    visible = strip_reasoning(text)
    cut = _NEXT_QUESTION.search(visible)
    return visible[: cut.start()] if cut and visible[: cut.start()].strip() else visible


def boxed_content(text: str) -> str | None:
    """The content of the last \\boxed{…} or \\fbox{…}, None when there is none (or unclosed)."""
    starts = [m for m in re.finditer(r"\\(?:boxed|fbox)\s*", text)]
    for m in reversed(starts):
        i = m.end()
        if i < len(text) and text[i] == "{":
            depth = 0
            for j in range(i, len(text)):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    return text[i + 1 : j].strip()
            continue
        token = re.match(r"[^\s$]+", text[i:])  # "\boxed 5"
        if token:
            return token.group().strip()
    return None


def answer_span(rest: str) -> str | None:
    """The answer at the start of `rest`: a $…$ span whole, else up to the end of the sentence."""
    line = rest.split("\n", 1)[0]
    if not line.strip(_STRIP):
        following = [x for x in rest.split("\n")[1:] if x.strip(_STRIP)]
        line = following[0] if following else ""
    inner = boxed_content(line)
    if inner is not None:
        return inner or None
    span = _MATH_SPAN.match(line)
    if span:
        return next(g for g in span.groups() if g is not None).strip() or None
    end = _SENTENCE_END.search(line)
    value = (line[: end.start()] if end else line).strip(_STRIP)
    return value or None


def _text_marker(text: str) -> str | None:
    for marker in reversed(list(_TEXT_MARKER.finditer(text))):
        value = answer_span(text[marker.end() :])
        if value is not None:
            return value
    return None


def _hash_marker(text: str) -> str | None:
    for m in reversed(list(_HASH.finditer(text))):
        value = m.group(1).strip(_STRIP)
        if value:
            return value
    return None


def _last_number(text: str) -> str | None:
    numbers = find_numbers(clean_text(text))
    return numbers[-1][2].text if numbers else None


def extract_maths(text: str, *, asked: tuple[str, ...], numeric: bool) -> Extraction:
    """The answer of a maths reply; `asked` names the rules that follow the format the prompt
    asked for ("boxed", "final_answer", "hash_marker"); `numeric` allows the last-number
    fallback."""
    visible = normalize_text(visible_reply(text))
    found: list[tuple[str, str | None]] = [
        ("boxed", boxed_content(visible)),
        ("final_answer", _text_marker(visible)),
        ("hash_marker", _hash_marker(visible)),
    ]
    if numeric:
        found.append(("last_number", _last_number(visible)))
    for rule, value in found:
        if value:
            note = "fallback: no answer marker in the reply" if rule == "last_number" else ""
            return Extraction(value, rule, rule in asked, note)
    why = (
        "empty reply"
        if not visible.strip()
        else "no answer marker" + (" and no number" if numeric else "")
    )
    return Extraction(None, "none", False, why)
