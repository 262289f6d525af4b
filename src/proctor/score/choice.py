"""Multiple choice: the letter the reply picks must be the target letter."""

from __future__ import annotations

import json

from proctor.extract.choice import CHOICE_RULES, extract_choice
from proctor.score.failed import CALL_FAILED_RULE
from proctor.types import FinishReason, Sample, Score

RULES: dict[str, str] = {
    "call_failed": CALL_FAILED_RULE,
    "truncated": "The reply hit max_tokens before it named a choice.",
    "no_answer": "No choice letter could be found in the reply.",
    **CHOICE_RULES,
    "letter_equal": "The letter picked must be the letter of the correct choice (after the"
    " seeded shuffle).",
}


def grade_choice(
    text: str,
    finish_reason: FinishReason,
    sample: Sample,
) -> Score:
    choices = json.loads(sample.metadata.get("choices", "[]"))
    found = extract_choice(text, letters=sample.metadata.get("letters", "ABCD"), choices=choices)
    if found.value is None:
        if finish_reason == "length":
            return Score("truncated", "truncated", RULES["truncated"])
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({found.note})")
    correct = found.value == sample.target
    said = f"{found.value!r} {'is' if correct else 'is not'} the correct choice {sample.target!r}."
    return Score(
        "correct" if correct else "wrong",
        f"{found.rule}+letter_equal",
        said,
        extracted=found.value,
        normalized=found.value,
        format_ok=found.format_ok,
    )
