"""Find the answer in a model's reply: named rules tried in order; the first that finds one wins.

Numbers (integer, decimal, fraction): final_answer_line, answer_line, bare_answer, boxed,
equals_ending, last_number. Comparisons: final_answer_line, answer_line, bare_answer, boxed,
last_comparison. Text: final_answer_line, answer_line, bare_answer, boxed. Nothing found: rule
"none".

`format_ok` says whether the reply used the format its prompt variant asked for: variant "B"
(reason, then "Final answer: X") only with final_answer_line; variant "A" (the answer alone)
only with bare_answer; any other variant with either. The fallbacks (boxed, equals_ending,
last_number, last_comparison) are never format_ok and always name themselves in
`Extraction.rule`: a fallback answer is graded, but flagged, never silently trusted. An
"Answer:" line is a marker, but not the one any prompt variant asks for (never format_ok).

A marked answer (final_answer_line, answer_line, boxed) that the reply takes back afterwards
("Wait, …", "不对，应为 …", `extract.retraction`) gives rule "retracted" and no value.

Reasoning traces (`<think>…</think>`) are removed first; every rule reads the reply after
`clean_text` (NFKC, minus signs, markdown/LaTeX decoration stripped).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple

from proctor._util.rule_docs import rule_docs
from proctor.extract.comparison import find_comparisons, pick_comparison
from proctor.extract.normalize import (
    clean_text,
    decimal_string,
    find_numbers,
    normalize_text,
    parse_number,
)
from proctor.extract.numerals import CN_NUMERAL_CHARS, read_chinese
from proctor.extract.plain_answer import plain_answer
from proctor.extract.reasoning import strip_reasoning
from proctor.extract.retraction import withdrawal
from proctor.extract.stated import hedge, rejected, scale_after, signed, spaced_thousands
from proctor.types import AnswerType, Extraction

_MARKER = re.compile(
    r"final\s+answer\s*(?:is\b\s*[:=]?|[:=]|$)"
    r"|(?:最终答案|答案)\s*(?:是|为|[:=])\s*[:=]?|最终答案[ \t]*$"
    r"|^[ \t]*####",
    re.IGNORECASE | re.MULTILINE,
)
_ANSWER_LINE = re.compile(r"^[ \t>*#_]*answer[*_]*[ \t]*[:：]", re.IGNORECASE | re.MULTILINE)
_SENTENCE_STOP = re.compile(r"[。！？；;!?、]|\.(?!\d)|(?<!\d),|,(?!\d{3}(?!\d))")
_TRAILING = " \t\r\n.。!！;；"
_OPERATOR = re.compile(r"[×÷*+·^]|[\d)]\s*-|\s/\s")
_INSTRUCTION = re.compile(r"\([^()]*[A-Za-z\u4e00-\u9fff][^()]*\)")
_NUMERIC_TYPES = ("integer", "decimal", "fraction")
_SEGMENT_LIMIT = 300  # an answer sits right after its marker; this bounds runaway lines


class _Reply:
    """The reply as the rules read it. A plain class, not a dataclass: one is built per graded
    reply, and the question's operands are read only when a rule needs them."""

    __slots__ = ("_operands", "answer_type", "operand_texts", "question", "text", "with_decoration")

    def __init__(
        self,
        text: str,
        with_decoration: str,
        answer_type: AnswerType,
        operand_texts: Sequence[str],
        question: str,
    ) -> None:
        self.text = text
        self.with_decoration = with_decoration
        self.answer_type = answer_type
        self.operand_texts = operand_texts
        self.question = question
        self._operands: tuple[Fraction, ...] | None = None

    @property
    def operands(self) -> tuple[Fraction, ...]:
        if self._operands is None:
            self._operands = operand_values(self.operand_texts, self.question)
        return self._operands


class _Found(NamedTuple):
    value: str
    note: str = ""
    withdrawn_by: str | None = None
    """The phrase after the answer that takes it back ("Wait", "不对，应为"), if any."""


def _segment(text: str, start: int, *, cut: bool) -> str:
    """The rest of the line after `start` (or the next non-empty line if it is blank)."""
    end = text.find("\n", start)
    segment = text[start : end if end >= 0 else len(text)]
    while not segment.strip(" \t:=*#") and end >= 0:
        start, end = end + 1, text.find("\n", end + 1)
        segment = text[start : end if end >= 0 else len(text)]
    segment = segment[:_SEGMENT_LIMIT]
    if cut:
        stop = _SENTENCE_STOP.search(segment)
        segment = segment[: stop.start()] if stop else segment
    return segment


def _answer_in(segment: str, reply: _Reply) -> str | None:
    """The answer a short span states: its number, comparison or text (see `extract.stated`
    for signs, rejected values, hedges and scale words)."""
    if reply.answer_type == "comparison":
        comparison = pick_comparison(segment)
        return comparison.text if comparison else None
    if reply.answer_type == "text":
        return segment.strip(_TRAILING) or None
    segment = signed(segment)
    segment = spaced_thousands(segment.strip(_TRAILING)) or segment
    numbers = find_numbers(segment)
    cut = max(segment.rfind("="), segment.rfind("≈"))
    if cut >= 0:
        head, tail = segment[:cut], [n for n in numbers if n[0] > cut]
        # "4821 × 37 = 178377" and "3.125 ≈ 3.13" answer after the sign; "42 (= 6 × 7)" before.
        if tail and (segment[cut] == "≈" or _OPERATOR.search(head) or not find_numbers(head)):
            numbers = tail
    numbers = [n for n in numbers if not rejected(segment, n[0])]
    if not numbers:
        return _chinese_numeral(segment)
    offered = hedge(segment, numbers)
    if offered is not None:
        return offered
    # "The product of 4821 and 37 is 178377": the answer is not a restated operand.
    others = [n for n in numbers if n[2].value not in reply.operands]
    _start, end, token = (others or numbers)[0]
    scale = scale_after(segment, end)
    return f"{token.text} {scale}" if scale else token.text


def _after_markers(reply: _Reply, markers: list[re.Match[str]]) -> _Found | None:
    for index, marker in enumerate(reversed(markers)):
        segment = _segment(reply.text, marker.end(), cut=reply.answer_type != "text")
        value = _answer_in(segment, reply)
        if value is not None:
            note = (
                ""
                if index == 0
                else "the last final-answer marker had no answer; an earlier one was used"
            )
            end = reply.text.find(segment, marker.end()) + len(segment)
            return _Found(value, note, withdrawal(reply.text, max(end, marker.end())))
    return None


def _chinese_numeral(segment: str) -> str | None:
    """An answer written in Chinese numerals (一千三百一十 = 1310), by the one number reader."""
    written = segment.strip(_TRAILING)
    if not written or any(c not in CN_NUMERAL_CHARS + "点负" for c in written):
        return None
    number = read_chinese(written.removeprefix("负"))
    if number is None or number.high is not None:
        return None
    value = -number.value if written.startswith("负") else number.value
    return decimal_string(value) or f"{value.numerator}/{value.denominator}"


def final_answer_line(reply: _Reply) -> _Found | None:
    """The answer is the first number (or comparison) after the last "Final answer:" /
    "最终答案：" / "答案：" marker, on that line.
    """
    return _after_markers(reply, list(_MARKER.finditer(reply.text)))


def answer_line(reply: _Reply) -> _Found | None:
    """The answer is the first number (or comparison, or text) after the last line that starts
    "Answer:".
    """
    return _after_markers(reply, list(_ANSWER_LINE.finditer(reply.text)))


def bare_answer(reply: _Reply) -> _Found | None:
    """The whole reply, without decoration and trailing punctuation, is exactly one answer token."""
    candidate = reply.text.strip(_TRAILING)
    if not candidate:
        return None
    if reply.answer_type in _NUMERIC_TYPES:
        return _Found(candidate) if parse_number(candidate) else None
    if reply.answer_type == "comparison":
        tokens = find_comparisons(candidate)
        return _Found(candidate) if len(tokens) == 1 and tokens[0].text == candidate else None
    return _Found(candidate) if "\n" not in candidate else None


def boxed(reply: _Reply) -> _Found | None:
    """The answer is the content of the last \\boxed{…} in the reply."""
    start = reply.with_decoration.rfind("\\boxed")
    brace = reply.with_decoration.find("{", start)
    if start < 0 or brace < 0:
        return None
    depth, end = 0, brace
    for end in range(brace, len(reply.with_decoration)):
        depth += {"{": 1, "}": -1}.get(reply.with_decoration[end], 0)
        if depth == 0:
            break
    content = clean_text(reply.with_decoration[brace + 1 : end])
    value = _answer_in(content, reply)
    if value is None:
        return None
    return _Found(value, withdrawn_by=withdrawal(reply.with_decoration, end + 1))


def equals_ending(reply: _Reply) -> _Found | None:
    """The last non-empty line ends with "= X" (or "≈ X") where X is a number."""
    lines = [line for line in reply.text.splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1].rstrip(_TRAILING)
    equals = max(last.rfind("="), last.rfind("≈"))
    if equals < 0:
        return None
    tail = last[equals + 1 :].strip()
    return _Found(tail) if parse_number(tail) else None


def last_number(reply: _Reply) -> _Found | None:
    """Fallback: the last number in the reply that is not one of the question's own operands."""
    numbers = [token for _, _, token in find_numbers(reply.text)]
    for index in range(len(numbers) - 1, -1, -1):
        if numbers[index].value not in reply.operands:
            skipped = [token.text for token in numbers[index + 1 :]]
            note = f"skipped the question's operands {', '.join(skipped)}" if skipped else ""
            return _Found(numbers[index].text, note)
    return None


def last_comparison(reply: _Reply) -> _Found | None:
    """Fallback: the last comparison word or symbol written next to a number (a bare "=" never
    counts).
    """
    tokens = [
        token
        for token in find_comparisons(reply.text)
        if token.strict_word_or_symbol and (token.left or token.right)
    ]
    return _Found(tokens[-1].text) if tokens else None


Rule = Callable[[_Reply], "_Found | None"]

_NUMBER_RULES = (final_answer_line, answer_line, bare_answer, boxed, equals_ending, last_number)
_ORDER: dict[str, tuple[Rule, ...]] = {
    "integer": _NUMBER_RULES,
    "decimal": _NUMBER_RULES,
    "fraction": _NUMBER_RULES,
    "comparison": (final_answer_line, answer_line, bare_answer, boxed, last_comparison),
    "text": (final_answer_line, answer_line, bare_answer, boxed),
}

NO_ANSWER_RULE = "none"
RETRACTED_RULE = "retracted"

EXTRACTION_RULES: dict[str, str] = rule_docs(
    final_answer_line,
    answer_line,
    bare_answer,
    boxed,
    equals_ending,
    last_number,
    last_comparison,
)
EXTRACTION_RULES[NO_ANSWER_RULE] = "No extraction rule found an answer in the reply."
EXTRACTION_RULES[RETRACTED_RULE] = (
    'The reply withdraws the answer it marked ("wait", "actually", "correction", "不对",'
    ' "应为") and marks no final answer after that, so it is not scored: never graded on the'
    " answer it took back."
)


def last_marker_is_cut(text: str) -> bool:
    """Whether the reply ends on the line of its last final-answer marker: a reply cut off by
    max_tokens there never finished the answer that line gives."""
    cleaned = clean_text(normalize_text(strip_reasoning(text))).rstrip(" \t")
    markers = list(_MARKER.finditer(cleaned)) + list(_ANSWER_LINE.finditer(cleaned))
    return bool(markers) and "\n" not in cleaned[max(m.end() for m in markers) :]


def operand_values(operands: Sequence[str] = (), question: str = "") -> tuple[Fraction, ...]:
    """The question's operands: from `operands` if given, else every number in `question`
    outside parenthesised instructions such as "(round to 2 decimal places)"."""
    if operands:
        tokens = [parse_number(operand) for operand in operands]
        return tuple(token.value for token in tokens if token is not None)
    body = _INSTRUCTION.sub(" ", clean_text(question))
    return tuple(token.value for _, _, token in find_numbers(body))


def _format_ok(variant: str, rule: str) -> bool:
    asked = variant.strip().upper()
    if asked == "B":
        return rule == "final_answer_line"
    if asked == "A":
        return rule == "bare_answer"
    return rule in ("final_answer_line", "bare_answer")


def _why_none(reply: _Reply) -> str:
    if not reply.text.strip():
        return "empty reply"
    if reply.answer_type not in _NUMERIC_TYPES:
        return f"no {reply.answer_type} answer in the reply"
    numbers = find_numbers(reply.text)
    if not numbers:
        return "no number in the reply"
    return "only the question's own numbers were found: " + ", ".join(
        token.text for _, _, token in numbers
    )


def extract_answer(
    text: str,
    *,
    variant: str,
    question: str = "",
    operands: tuple[str, ...] = (),
    answer_type: AnswerType = "integer",
) -> Extraction:
    """Apply the rules for `answer_type` in order; the first that finds an answer names it."""
    if answer_type in _NUMERIC_TYPES:
        # The common plain shapes, without the rules: the same answer, rule and (no) note as
        # the rules give them (`extract.plain_answer` says why; the tests check it).
        plain = plain_answer(text)
        if plain is not None:
            value, found_by = plain
            return Extraction(value, found_by, _format_ok(variant, found_by), "")
    visible = normalize_text(strip_reasoning(text))
    reply = _Reply(
        text=clean_text(visible),
        with_decoration=visible,
        answer_type=answer_type,
        operand_texts=operands,
        question=question,
    )
    for rule in _ORDER[answer_type]:
        found = rule(reply)
        if found is not None and found.withdrawn_by is not None:
            note = (
                f"{rule.__name__} found {found.value!r}, withdrawn afterwards"
                f" ({found.withdrawn_by!r}), and no final answer follows"
            )
            return Extraction(None, RETRACTED_RULE, False, note)
        if found is not None:
            name = rule.__name__
            return Extraction(found.value, name, _format_ok(variant, name), found.note)
    return Extraction(None, NO_ANSWER_RULE, False, _why_none(reply))
