"""The refusal scorer: the material does not hold the answer, and the reply must say so.

Saying so is finding one of the refusal phrases ("材料未提及", "not mentioned in the material", …;
a suite may add its own). Saying so and then guessing is still a guess: any specific number that
is not already in the question (digits, "五百万", "five million"), and any of the case's listed
invented facts, fails the reply — it is what makes refusals worth testing: inventing is the
costliest failure. Numbers the case lists under `allowed` (e.g. a year the reply may repeat from
the material) do not count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.extract.phrases import contains_phrase, first_phrase, specific_numbers
from proctor.types import FinishReason, Score

RULES: dict[str, str] = {
    "no_refusal": "The reply must say the material does not contain the answer (e.g. 材料未提及,"
    " not mentioned in the material).",
    "invented_number": "A refusal must not give any specific number that is not in the question:"
    " saying 'not mentioned' and then a figure is still inventing one.",
    "invented_fact": "A refusal must not state any of the case's listed invented facts.",
    "refused_cleanly": "The reply says the material does not contain the answer and invents"
    " nothing.",
}

REFUSAL_PHRASES: tuple[str, ...] = (
    "未提及",
    "没有提及",
    "未提到",
    "没有提到",
    "没提到",
    "未说明",
    "没有说明",
    "未给出",
    "没有给出",
    "未披露",
    "没有披露",
    "未涉及",
    "没有涉及",
    "无法确定",
    "无法得知",
    "无法从材料",
    "不能从材料",
    "材料中没有",
    "材料里没有",
    "没有相关信息",
    "not mentioned",
    "isn't mentioned",
    "is not mentioned",
    "does not mention",
    "doesn't mention",
    "do not mention",
    "no mention",
    "not stated",
    "does not state",
    "doesn't state",
    "does not say",
    "doesn't say",
    "not specified",
    "does not specify",
    "doesn't specify",
    "not provided",
    "does not provide",
    "doesn't provide",
    "not given",
    "not included",
    "no information",
    "not in the material",
    "not in the text",
    "cannot be determined",
    "can't be determined",
    "cannot determine",
    "can't determine",
    "not possible to determine",
)
"""Phrases that say the material does not hold the answer; a suite adds its own in its config."""


@dataclass(frozen=True)
class RefusalCheck:
    """The reply must say the material does not contain the answer, and give no number that is
    not in the question and none of the case's invented facts."""

    question: str
    phrases: Sequence[str] = REFUSAL_PHRASES
    invented: Sequence[str] = ()
    """Facts a model is likely to invent for this case (e.g. a name); any one fails the reply."""
    allowed: Sequence[str] = ()
    """Numbers (or numerals) the reply may give although the question does not."""

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        said = first_phrase(text, self.phrases)
        allowed = set(specific_numbers(self.question))
        for a in self.allowed:
            allowed.update(specific_numbers(a) or [a])
        numbers = list(dict.fromkeys(n for n in specific_numbers(text) if n not in allowed))
        facts = [f for f in self.invented if contains_phrase(text, f)]
        reading = ("refused" if said else "answered") + "".join(f" {n}" for n in numbers)
        reading += "".join(f" {f}" for f in facts)
        if said is None:
            what = "gives " + ", ".join(numbers) if numbers else "gives no refusal phrase"
            if finish_reason == "length":
                return Score("truncated", "no_refusal", f"cut off by max_tokens; {what}")
            return Score(
                "wrong",
                "no_refusal" + ("+invented_number" if numbers else ""),
                f"does not say the material lacks the answer; {what}",
                said,
                reading,
            )
        rules: list[str] = []
        parts: list[str] = []
        if numbers:
            rules.append("invented_number")
            parts.append("also gives the number " + ", ".join(numbers))
        if facts:
            rules.append("invented_fact")
            parts.append("also states " + ", ".join(repr(f) for f in facts))
        if rules:
            explanation = f"says {said!r} but " + "; ".join(parts)
            return Score("wrong", "+".join(rules), explanation, said, reading, format_ok=True)
        return Score(
            "correct", "refused_cleanly", f"says {said!r}, invents nothing", said, reading, True
        )
