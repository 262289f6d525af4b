"""Find the final answer of a maths reply: the answer the reply states LAST, by named rules.

boxed         a \\boxed{…} (or \\fbox{…}), braces balanced; boxes written side by side, joined
              only by commas, "and", "or" or spacing, or within one math span ($…$, \\[…\\]),
              are one answer listing their contents
final_answer  after "final answer is", "Final Answer:", "the answer is", a line starting
              "Answer:", "答案是/为/：", up to the end of that sentence; in it, what follows its
              last "is" or "=" is the answer, and math spans ($…$) are read whole
              (and "Réponse :", "la réponse est", "Antwort:", "la respuesta es", "resposta:",
              "risposta:", "Ответ:", "答え:", "정답:", and those of `extract.answer_markers`:
              Arabic, Hindi, Turkish, Indonesian, Vietnamese, Dutch, Persian, Thai)
hash_marker   after "####" (GSM8K's own format)
bare_answer   no marker: a reply that is one expression and no words is its own answer
last_number   numeric tasks only, when no rule above found anything: the last number (flagged)

Among boxed, final_answer and hash_marker, the one written last in the reply wins: a reply that
corrects itself answers with what it says last ("\\boxed{5} … The final answer is 6" answers 6).
A phrase that states no maths (no digit, no math) does not replace an earlier box ("I hope the
answer is correct" is not an answer). When nothing is found the scorer may fall back on
Math-Verify's own extraction (rule `mathverify`).

retracted     the answer chosen is taken back afterwards in prose ("Wait — I counted one case
              twice; the probability is actually 3/5", "不对，应为 5") with no marked answer
              after that: no answer is the final one (`extract.retraction`), and the scorer
              leaves the reply unscored

The reasoning trace (`<think>…</think>`) is removed first, and so is anything after a line that
starts a new question ("Q:", "Question:"), which a model continuing a few-shot pattern writes
and which is not its answer; so are its programs (`extract.code.prose_of`): no rule reads a code
comment or a string literal. `format_ok` is true when the rule is the one the prompt asked for.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, replace

from proctor.extract.answer_markers import LANGUAGE_MARKERS
from proctor.extract.code import prose_of
from proctor.extract.last_number import last_number
from proctor.extract.local_numbers import read_local_numbers
from proctor.extract.normalize import normalize_text
from proctor.extract.numerals import CN_NUMERAL_CHARS
from proctor.extract.reasoning import strip_reasoning
from proctor.extract.retraction import withdrawal
from proctor.extract.stated import REJECTING
from proctor.extract.units import PERCENT, unit_named
from proctor.types import Extraction

_NEXT_QUESTION = re.compile(r"\n[ \t]*(?:Q|Question|Problem)[ \t]*:", re.IGNORECASE)
_TEXT_MARKER = re.compile(
    r"(?:final\s+answer\s*(?:is|:)|the\s+(?:final\s+)?answer\s*(?:\([^()\n]{0,40}\)\s*)?is\b"
    r"|^[ \t>*#_]*answer[*_]*[ \t]*:"
    r"|(?:最终答案|答案)\s*(?:是|为|[:：])"
    # the same markers in the languages models answer in
    r"|\br[ée]ponse(?:\s+finale)?\s*:|\bla\s+r[ée]ponse(?:\s+finale)?\s+est\b"
    r"|\b(?:die\s+)?antwort\s*(?::|ist\b)|\b(?:la\s+)?respuesta(?:\s+final)?\s*(?::|es\b)"
    r"|\b(?:a\s+)?resposta(?:\s+final)?\s*(?::|é)|\b(?:la\s+)?risposta(?:\s+finale)?\s*(?::|è)"
    r"|\bответ\s*:|答え\s*(?:は|[:：])|정답\s*(?:은|[:：])|최종\s*답\s*[:：]"
    r"|" + LANGUAGE_MARKERS + ")"
    r"[ \t*_]*:?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_HASH = re.compile(r"^[ \t]*####[ \t]*(.*)$", re.MULTILINE)
_BOX = re.compile(r"\\(?:begin)?(?:boxed|fbox)\s*")
_BETWEEN_BOXES = re.compile(
    r"(?:\s|[,;.$&]|\\\\|\\[()\[\]]|\\q?quad\b|\\[,;:! ]|\\text\s*\{\s*(?:and|or|,)?\s*\}"
    r"|\b(?:and|or)\b|[A-Za-z](?:_\{?\w+\}?)?\s*=)*",
    re.IGNORECASE,
)
"""What may stand between boxes that list one answer: commas, "and"/"or", spacing, math
delimiters and labels ("x = \\boxed{1}, y = \\boxed{2}")."""
_PERCENT_AFTER = re.compile(r"[ \t]*(?:\$|\\\)|\\\])?[ \t]*(?:\\%|%|percent(?:age)?\b|pct\b)", re.I)
"""A percent sign or word right after a box belongs to the boxed answer ("\\boxed{20} percent")."""
_JOINING_WORD = re.compile(r"\b(?:and|or)\b|,", re.IGNORECASE)
_TARGET_JOIN_LIMIT = 40
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_SENTENCE_END = re.compile(
    r"\.(?=\s|$)|[。।]|\s+(?:I hope|because|since|which|so that)\b", re.IGNORECASE
)
_LAST_IS = re.compile(r"\s(?:is|are|was|equals)\s|\s=\s|(?<![不非])是|为", re.IGNORECASE)
_NUMBER_FIRST = re.compile(r"[\s$*_]*[-+]?\\?\$?\s*\d")
"""An answer that starts with its number: the words after it are details ("10 loaves of bread
are sold in the afternoon" states 10), so no later "is"/"are" cuts it (an "=" still does)."""
_REJECTION = re.compile(r"(?:[,，;；]\s*)?" + REJECTING + r"(?![A-Za-zÀ-ÿ])", re.IGNORECASE)
"""A rejected alternative after the answer ("100 minutes, not 160", "8/3, et non 14/3",
"5/36，而不是 1/6"): the answer ends before it."""
_SPAN_GLUE = re.compile(r"(?:\s|[,;]|\band\b|\bor\b|\\text\{[^{}]*\})*", re.IGNORECASE)
_STRIP = " \t\r\n.,;:*_$\"'“”"
_COPULA_END = re.compile(r"\s*(?:입니다|이다|예요|이에요|です|である|است|है|हैं)\s*[.。।]?\s*$")
"""The "is" that closes a Korean, Japanese, Persian or Hindi sentence after its answer
("7만 원입니다")."""
_SPAN_LIMIT = 2000
"""An answer sits right after its marker: at most this much of what follows is read."""
_STATES_MATHS = re.compile(r"[\d\\$^=+\-/(){}\[\]]")

MATHS_RULES: dict[str, str] = {
    "boxed": "The answer is the content of the last \\boxed{…} in the reply (boxes written side"
    " by side are one answer listing them).",
    "final_answer": 'The answer follows the last "final answer is", "Final Answer:", "the'
    ' answer is" or line starting "Answer:", up to the end of that sentence.',
    "hash_marker": 'The answer follows the last "####" (GSM8K\'s format).',
    "bare_answer": "The reply marks no answer but is one expression and no words: it is the"
    " answer.",
    "last_number": "Fallback for numeric answers: the last number in the reply.",
    "retracted": 'The reply withdraws the answer it stated ("wait", "actually", "correction",'
    ' "不对", "应为") and states no marked final answer after that, so it is not scored: never'
    " graded on the answer it took back.",
    "mathverify": "Fallback when the reply marks no answer: Math-Verify's own extraction (its"
    " LaTeX and expression targets, in its order of priority).",
    "none": "No extraction rule found an answer in the reply.",
}


@dataclass(frozen=True)
class MathsAnswer:
    """What `find_maths_answer` found: the answer text, its rule, and whether the reply was
    still inside it when it ended (an unclosed box, or a marked line with no line break after
    it): a reply cut off by max_tokens there never stated its answer."""

    value: str | None
    rule: str
    format_ok: bool
    note: str = ""
    at_end: bool = False
    withdrawn: str | None = None
    """The answer a `retracted` reply stated and then took back."""

    def extraction(self) -> Extraction:
        return Extraction(self.value, self.rule, self.format_ok, self.note)


@dataclass(frozen=True)
class _Candidate:
    rule: str
    value: str | None
    start: int
    at_end: bool
    end: int
    """Where the stated answer ends: what follows may withdraw it (`extract.retraction`)."""
    marker_end: int = 0
    """Where an answer phrase's marker ends (its text is reply[start:marker_end])."""


def visible_reply(text: str) -> str:
    """The reply without its reasoning trace and without any invented next question."""
    visible = strip_reasoning(text)
    cut = _NEXT_QUESTION.search(visible)
    return visible[: cut.start()] if cut and visible[: cut.start()].strip() else visible


def _box_at(text: str, start: int) -> tuple[int, str | None]:
    """(end, content) of the box whose command starts at `start`; content None when unclosed."""
    i = _BOX.match(text, start)
    assert i is not None
    j = i.end()
    if j < len(text) and text[j] == "{":
        depth = 0
        for k in range(j, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                return k + 1, text[j + 1 : k].strip()
        return len(text), None
    token = re.match(r"[^\s$]+", text[j:])  # "\boxed 5"
    if token:
        return j + token.end(), token.group().strip()
    return j, None


def _boxes(text: str) -> list[tuple[int, int, str | None]]:
    """Every outermost box: (start, end, content)."""
    found: list[tuple[int, int, str | None]] = []
    position = 0
    for m in _BOX.finditer(text):
        if m.start() < position:
            continue  # inside the previous box
        end, content = _box_at(text, m.start())
        found.append((m.start(), end, content))
        position = end
    return found


_SPANS = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]|\\\(.*?\\\)|(?<!\\)\$[^$]*?(?<!\\)\$", re.DOTALL)


class _Spans:
    """The math spans of a text, found once: which stretch of it lies inside one."""

    def __init__(self, text: str) -> None:
        self._spans: list[tuple[int, int]] | None = None
        self._text = text

    def around(self, end: int, start: int) -> bool:
        """Whether text[end:start] lies inside one math span."""
        if self._spans is None:
            self._spans = [(m.start(), m.end()) for m in _SPANS.finditer(self._text)]
        spans = self._spans
        i = bisect.bisect_left(spans, (end, end)) - 1
        return any(a < end and start < b for a, b in spans[max(0, i) : i + 2])


def _joined(text: str, spans: _Spans, end: int, start: int) -> bool:
    """Whether a box ending at `end` and the next one starting at `start` list one answer."""
    return bool(_BETWEEN_BOXES.fullmatch(text, end, start)) or spans.around(end, start)


def _box_groups(text: str) -> list[_Candidate]:
    groups: list[list[tuple[int, int, str | None]]] = []
    spans = _Spans(text)
    for box in _boxes(text):
        last = groups[-1][-1] if groups else None
        if last is not None and last[2] is not None and _joined(text, spans, last[1], box[0]):
            groups[-1].append(box)
            continue
        groups.append([box])
    candidates = []
    for group in groups:
        contents = [c for _, _, c in group]
        unclosed = contents[-1] is None
        values = [c for c in contents if c]
        value = ", ".join(values) if values and not unclosed else None
        if value is not None and _PERCENT_AFTER.match(text, group[-1][1]):
            value += "\\%"
        candidates.append(_Candidate("boxed", value, group[0][0], unclosed, group[-1][1]))
    return candidates


def target_boxed(text: str) -> str | None:
    """A target's boxed answer: its last box, with the boxes before it that a phrase with "and"
    or "or" (or a comma) joins to it ("\\boxed{1} papers and \\boxed{2} bins" is 1, 2); None
    when it has no box."""
    boxes = [b for b in _boxes(text) if b[2]]
    if not boxes:
        return None
    group = [boxes[-1]]
    spans = _Spans(text)
    for box in reversed(boxes[:-1]):
        between = text[box[1] : group[0][0]]
        joined = _joined(text, spans, box[1], group[0][0]) or (
            len(between) <= _TARGET_JOIN_LIMIT and _JOINING_WORD.search(between)
        )
        if not joined:
            break
        group.insert(0, box)
    value = ", ".join(str(c) for _, _, c in group)
    return value + "\\%" if _PERCENT_AFTER.match(text, group[-1][1]) else value


def boxed_content(text: str) -> str | None:
    """The content of the last \\boxed{…} or \\fbox{…}, None when there is none (or unclosed)."""
    for _, _, content in reversed(_boxes(text)):
        if content is not None:
            return content
    return None


def _spans_only(sentence: str) -> str | None:
    """The math spans of `sentence` when they are all it says (joined by commas, "and", "or"):
    one span's content, or several listed with ", "."""
    spans = list(_MATH_SPAN.finditer(sentence))
    if not spans:
        return None
    pieces = [sentence[: spans[0].start()]]
    pieces += [sentence[a.end() : b.start()] for a, b in itertools.pairwise(spans)]
    pieces.append(sentence[spans[-1].end() :])
    if not all(_SPAN_GLUE.fullmatch(p.strip(_STRIP) or "") for p in pieces):
        return None
    contents = [next(g for g in s.groups() if g is not None).strip() for s in spans]
    return ", ".join(c for c in contents if c) or None


def _outside_spans(sentence: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _MATH_SPAN.finditer(sentence)]


def answer_span(rest: str) -> tuple[str | None, bool]:
    """(the answer at the start of `rest`, whether it runs to the end of the text): the rest of
    the line (or the next non-empty line), cut at the end of its sentence; what follows its last
    "is"/"=" outside math; math spans read whole."""
    value, at_end, _ = _answer_span(rest)
    return value, at_end


def _answer_span(rest: str) -> tuple[str | None, bool, int]:
    """`answer_span`, and where in `rest` the sentence that states the answer ends."""
    start = 0
    while True:
        end = rest.find("\n", start)
        line = rest[start:] if end < 0 else rest[start:end]
        if line.strip(_STRIP) or end < 0:
            break
        start = end + 1
    at_end = end < 0
    spans = _outside_spans(line)
    stop = _SENTENCE_END.search(line)
    while stop and any(a < stop.start() < b for a, b in spans):
        stop = _SENTENCE_END.search(line, stop.end())
    if stop:
        at_end = False
        line = line[: stop.start()]
    consumed = start + len(line)
    rejection = next(
        (m for m in _REJECTION.finditer(line) if not any(a <= m.start() < b for a, b in spans)),
        None,
    )
    if rejection is not None and line[: rejection.start()].strip(_STRIP):
        line = line[: rejection.start()]
    cuts = [m for m in _LAST_IS.finditer(line) if not any(a <= m.start() < b for a, b in spans)]
    if _NUMBER_FIRST.match(line):
        cuts = [m for m in cuts if "=" in m.group()]
    if cuts and line[cuts[-1].end() :].strip(_STRIP):
        line = line[cuts[-1].end() :]
    spanned = _spans_only(line)
    value = spanned if spanned is not None else _COPULA_END.sub("", line).strip(_STRIP)
    return value or None, at_end, consumed


def _phrases(text: str) -> list[_Candidate]:
    found = []
    for marker in _TEXT_MARKER.finditer(text):
        rest = text[marker.end() : marker.end() + _SPAN_LIMIT]
        value, at_end, consumed = _answer_span(rest)
        at_end = at_end and marker.end() + len(rest) >= len(text)
        end = marker.end() + consumed
        found.append(_Candidate("final_answer", value, marker.start(), at_end, end, marker.end()))
    for m in _HASH.finditer(text):
        value = m.group(1).strip(_STRIP) or None
        found.append(_Candidate("hash_marker", value, m.start(), m.end() == len(text), m.end()))
    return found


_REJECTED_VALUE = re.compile(
    REJECTING
    + r"(?![A-Za-zÀ-ÿ])[^\S\n]*(?:[\u4e00-\u9fff]{0,4}\s*)?"
    + r"(?:\$[^$]*\$|\\\(.*?\\\)|[^\s,.;，。；]+)",
    re.IGNORECASE,
)


def without_rejected(text: str) -> str:
    """`text` without the values it rejects ("et non $\\frac{14}{3}$", "rather than 1/6",
    "而不是常见的 1/6"): a fallback that reads a whole reply must not find them."""
    return _REJECTED_VALUE.sub(" ", text)


_FORM_NAMED = re.compile(
    r"\((?:as|in)\s+(?:an?\s+|its\s+)?(?:[a-z]+\s+){0,2}(?:fractions?|decimals?|percent(?:age)?s?"
    r"|form|terms|notation)\)",
    re.IGNORECASE,
)
"""A marker that names the form it gives the answer in: "The answer (as a fraction) is", "(in
simplest form)", "(as a percentage)"; a unit ("(in dollars)") names none."""
_FORM_GAP = re.compile(r"[\s.,;$]*")
_FORM_SENTENCE = re.compile(r"(?:^|(?<=[.!?:]\s)|(?<=\n))((?:[^\n.!?:]|\.(?=\d)){1,40}?)[\s.,;$]*$")
"""The whole sentence right before a marker, when short (a decimal point ends none)."""


def _with_first_form(text: str, candidates: list[_Candidate], chosen: _Candidate) -> _Candidate:
    """The chosen answer phrase joined to the value stated right before it when the phrase names
    its form ("25%. The answer (as a fraction) is 1/4"): the phrase restates that answer, so the
    two are one answer in two forms, or two values (`score.maths`, rule `two_forms`)."""
    marker = text[chosen.start : chosen.marker_end]
    if chosen.rule != "final_answer" or chosen.value is None or not _FORM_NAMED.search(marker):
        return chosen
    before = candidates[: candidates.index(chosen)]
    prev = next((p for p in reversed(before) if p.value is not None), None)
    first = prev.value if prev and _FORM_GAP.fullmatch(text, prev.end, chosen.start) else None
    sentence = _FORM_SENTENCE.search(text, max(0, chosen.start - 80), chosen.start)
    bare = sentence[1] if sentence else ""
    if first is None and _DIGIT.search(bare) and "=" not in bare and not in_words(bare):
        first = bare.strip(_STRIP)
    return replace(chosen, value=f"{first}. {marker.strip()} {chosen.value}") if first else chosen


def _pick(candidates: list[_Candidate]) -> _Candidate | None:
    """The last candidate that states an answer; a phrase stating no maths never replaces an
    earlier box."""
    boxed_before = False
    chosen: _Candidate | None = None
    for c in candidates:
        if c.value is None:
            continue
        if c.rule != "boxed" and boxed_before and not _STATES_MATHS.search(c.value):
            continue
        boxed_before = boxed_before or c.rule == "boxed"
        chosen = c
    return chosen


_WORD = re.compile(r"[A-Za-z]{3,}")
_COMMAND = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}|\\[A-Za-z]+")
_NOT_WORDS = frozenset({"sqrt", "sin", "cos", "tan", "log", "exp"})
_BARE_LIMIT = 300


def in_words(text: str) -> bool:
    """Whether `text` has a word of three letters or more outside LaTeX commands."""
    words = _WORD.findall(_COMMAND.sub(" ", text))
    return any(w.lower() not in _NOT_WORDS and unit_named(w.lower()) is not PERCENT for w in words)


_DIGIT = re.compile(r"\d")
_SCRIPT_WORD = re.compile(
    r"(?:[^\W\d_\u0370-\u03ff\u3040-\u30ff\u3400-\u9fff]|[\u0900-\u0dff])*"
    r"[^\x00-\x7f\W\d_\u0370-\u03ff\u3040-\u30ff\u3400-\u9fff]"
    r"(?:[^\W\d_\u0370-\u03ff\u3040-\u30ff\u3400-\u9fff]|[\u0900-\u0dff])+"
)
"""A word with a letter outside ASCII, Greek (maths letters), kana and Han (read by the Chinese
rules): Arabic, Hindi, Vietnamese…; an Indic vowel sign is part of its word."""
_CJK_PROSE = re.compile(r"[，。；：！？]|[\u3400-\u9fff]{2,}")
"""Chinese punctuation, or two ideographs in a row: with digits, a sentence, not one expression
(a sentence in numerals only, "答案不是一百二十。", is still read whole by the number reader)."""


def _bare(visible: str) -> str | None:
    reply = visible.strip().strip("$").strip()
    if not reply or len(reply) > _BARE_LIMIT or "\n" in reply.strip() or in_words(reply):
        return None
    if _SCRIPT_WORD.search(reply):
        return None  # a sentence in Arabic, Hindi, Vietnamese…: the fallback English gets
    prose = _CJK_PROSE.search(reply)
    if prose and _DIGIT.search(reply) and not all(ch in CN_NUMERAL_CHARS for ch in prose.group()):
        return None  # a Chinese solution with digits gets the fallback an English one gets
    return reply


def find_maths_answer(
    text: str, *, asked: tuple[str, ...], numeric: bool, question: str = ""
) -> MathsAnswer:
    """The answer of a maths reply; `asked` names the rules that follow the format the prompt
    asked for ("boxed", "final_answer", "hash_marker"); `numeric` allows the last-number
    fallback, which reads the `question` for the quantities it gives
    (`extract.last_number`)."""
    visible = normalize_text(prose_of(visible_reply(text)))
    candidates = sorted(_box_groups(visible) + _phrases(visible), key=lambda c: c.start)
    at_end = bool(candidates) and candidates[-1].at_end
    chosen = _pick(candidates)
    if chosen is not None:
        chosen = _with_first_form(visible, candidates, chosen)
        phrase = withdrawal(visible, chosen.end)
        if phrase is not None:
            note = (
                f"the answer {chosen.value!r} is withdrawn afterwards ({phrase!r}) and no marked"
                " final answer follows"
            )
            withdrawn = chosen.value
            return MathsAnswer(None, "retracted", False, note, at_end=at_end, withdrawn=withdrawn)
        return MathsAnswer(chosen.value, chosen.rule, chosen.rule in asked, at_end=at_end)
    bare = _bare(visible)
    if bare is not None:
        return MathsAnswer(bare, "bare_answer", False, at_end=at_end)
    if numeric:
        value = last_number(visible, question=question)
        if value is not None:
            note = "fallback: no answer marker in the reply"
            return MathsAnswer(value, "last_number", False, note, at_end=at_end)
    why = (
        "empty reply"
        if not visible.strip()
        else "no answer marker" + (" and no number" if numeric else "")
    )
    return MathsAnswer(None, "none", False, why, at_end=at_end)


def extract_maths(
    text: str, *, asked: tuple[str, ...], numeric: bool, question: str = ""
) -> Extraction:
    """`find_maths_answer` as an `Extraction`, on the reply with its numbers read in its own
    language (`extract.local_numbers`), as the maths grader reads it."""
    local = read_local_numbers(text).text
    return find_maths_answer(local, asked=asked, numeric=numeric, question=question).extraction()
