"""The rewrite scorer: only the constraints a program can check; style, faithfulness and fluency
are left to the judge.

Lengths follow `proctor.extract.sentences`: CJK characters plus other words, so "每句不超过 25 字"
and "no sentence over 20 words" are the same constraint, `max_sentence`. `normalized` lists the
constraints broken ("ok" when none), so repeated replies that break the same ones read the same.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from proctor.extract.phrases import contains_phrase
from proctor.extract.sentences import sentence_length, split_sentences, text_length
from proctor.types import FinishReason, Score

RULES: dict[str, str] = {
    "sentence_too_long": "No sentence may be longer than max_sentence (CJK characters plus other"
    " words; sentences end at 。！？；… and . ! ? ;).",
    "too_long": "The whole reply may be at most max_length long (same count).",
    "too_short": "The whole reply must be at least min_length long (same count).",
    "required_word_missing": "Every required word must appear in the reply.",
    "forbidden_word": "No forbidden word may appear in the reply (an English word in any"
    " inflected form: 'guarantee' forbids 'guaranteed').",
    "truncated_rewrite": "The reply hit max_tokens, so it is not a finished rewrite.",
    "empty_rewrite": "The reply has no text to check.",
    "constraints_met": "Every checkable constraint holds; style and meaning are for the judge.",
}

_SHOWN = 24
_INFLECTIONS = ("s", "es", "d", "ed", "ing", "er", "ers")
_ONE_WORD = re.compile(r"[A-Za-z]{3,}")


def forms(word: str) -> list[str]:
    """A forbidden word and, for one English word, its inflected forms ("guarantee" also forbids
    "guarantees", "guaranteed"): for a forbidden word, counting more forms is the safe side."""
    if not _ONE_WORD.fullmatch(word):
        return [word]
    stem = word[:-1] if word.endswith("e") else word
    return [word, *(word + i for i in _INFLECTIONS), *(stem + i for i in ("ed", "ing", "er"))]


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


@dataclass(frozen=True)
class RewriteConstraints:
    """Every checkable constraint must hold: no sentence over max_sentence, total length within
    [min_length, max_length], each required word present, no forbidden word."""

    max_sentence: int | None = None
    max_length: int | None = None
    min_length: int | None = None
    required: Sequence[str] = ()
    forbidden: Sequence[str] = ()

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        if finish_reason == "length":
            return Score("truncated", "truncated_rewrite", "cut off by max_tokens")
        sentences = split_sentences(text)
        if not sentences:
            return Score("no_answer", "empty_rewrite", "the reply has no text to check")
        broken: list[tuple[str, str]] = []
        if self.max_sentence is not None:
            long = [(s, sentence_length(s)) for s in sentences]
            long = [(s, n) for s, n in long if n > self.max_sentence]
            if long:
                shown = "; ".join(f"{_short(s)!r} ({n})" for s, n in long[:3])
                more = f" and {len(long) - 3} more" if len(long) > 3 else ""
                broken.append(
                    (
                        "sentence_too_long",
                        f"{len(long)} of {len(sentences)} sentences over {self.max_sentence}: "
                        f"{shown}{more}",
                    )
                )
        total = text_length(text)
        if self.max_length is not None and total > self.max_length:
            broken.append(("too_long", f"length {total} over {self.max_length}"))
        if self.min_length is not None and total < self.min_length:
            broken.append(("too_short", f"length {total} under {self.min_length}"))
        missing = [w for w in self.required if not contains_phrase(text, w)]
        if missing:
            broken.append(("required_word_missing", "missing " + ", ".join(map(repr, missing))))
        banned = [w for w in self.forbidden if any(contains_phrase(text, f) for f in forms(w))]
        if banned:
            broken.append(("forbidden_word", "uses " + ", ".join(map(repr, banned))))
        longest = max(sentence_length(s) for s in sentences)
        facts = f"{len(sentences)} sentences, longest {longest}, length {total}"
        if not broken:
            return Score("correct", "constraints_met", facts, None, "ok", format_ok=True)
        rule = "+".join(r for r, _ in broken)
        explanation = "; ".join(m for _, m in broken) + f" ({facts})"
        return Score("wrong", rule, explanation, None, rule, format_ok=True)
