"""The last-number fallback of numeric maths tasks: the number a reply with no answer marker
stands by.

- the last number of the reply, in digits or in words (`extract.word_numbers`): not a rejected
  one ("not 18"), not a label ("horse #12");
- two forms of one answer joined by "that is" ("25%, that is 1/4") are one answer;
- a closing sentence states its answer before the details that follow it: when the last number
  is in a time or place phrase ("in the first 15 minutes", "en los últimos 15 minutos") or
  restates the question's own number with its word ("to transport 80 flagstones" where the
  question says "80 flagstones"), the sentence's last number before it that is no detail, in
  digits or in words ("Se vendieron doce panes…", "Three trucks…"), is the answer (it may be
  one the question gives too: "5 cars drove … in the first 15 minutes").
"""

from __future__ import annotations

import re

from proctor.extract.languages import reply_language
from proctor.extract.normalize import clean_text, find_numbers
from proctor.extract.quantities import show
from proctor.extract.stated import in_detail, rejected
from proctor.extract.word_numbers import last_word_number, word_numbers

_SENTENCE_BREAK = re.compile(r"[.!?。！？\n](?:\s|$)")
_ONE_ANSWER_TWO_FORMS = re.compile(
    r"\s*[,;]?\s*(?:that is|i\.\s?e\.,?|which is|or equivalently|soit|c'est-à-dire|d\.\s?h\."
    r"|das heißt|es decir|cioè|ou seja)\s+|\s*[,，]?\s*(?:即|也就是说?)\s*",
    re.IGNORECASE,
)
_NEXT_WORD = re.compile(r"\s*([^\W\d_]{3,})")
_SENTENCE_LIMIT = 300
"""How far before its detail a closing sentence's number words are read."""


def _restated(text: str, span: tuple[int, int], question: str) -> bool:
    """Whether the number at `span` is written with the word after it just as the question
    writes it ("80 flagstones"): the question's own quantity, restated."""
    word = _NEXT_WORD.match(text, span[1])
    if word is None or not question:
        return False
    said = re.escape(text[span[0] : span[1]]) + r"\s+" + re.escape(word.group(1))
    return re.search(rf"(?<![\d.,]){said}\b", question, re.IGNORECASE) is not None


def last_number(text: str, *, question: str = "") -> str | None:
    """The last number the reply stands by (see the module docstring); None when it has none."""
    language = reply_language(text)
    word = last_word_number(text, language)
    if word is not None:
        return word  # "so she has twelve apples left": the last number, in words
    cleaned = clean_text(text)
    numbers = [
        n
        for n in find_numbers(cleaned)
        if not rejected(cleaned, n[0]) and not cleaned.endswith("#", 0, n[0])  # "horse #12"
    ]
    if not numbers:
        return None
    last = numbers[-1]
    if len(numbers) > 1 and _ONE_ANSWER_TWO_FORMS.fullmatch(cleaned, numbers[-2][1], last[0]):
        return cleaned[numbers[-2][0] : last[1]]  # "25%, that is 1/4": one answer, two forms
    if not (in_detail(cleaned, last[0]) or _restated(cleaned, last[:2], question)):
        return last[2].text
    sentence = max((m.end() for m in _SENTENCE_BREAK.finditer(cleaned, 0, last[0])), default=0)
    stated = [(n[0], n[2].text) for n in numbers if sentence <= n[0] < last[0]]
    near = max(sentence, last[0] - _SENTENCE_LIMIT)
    stated += [(near + at, show(v)) for at, v in word_numbers(cleaned[near : last[0]], language)]
    stated = [s for s in stated if not in_detail(cleaned, s[0])]
    return max(stated)[1] if stated else last[2].text
