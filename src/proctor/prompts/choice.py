"""Multiple-choice prompts (GPQA): zero-shot, reason then "Answer: X". The choices are part of the
sample's input, already shuffled by the loader."""

from __future__ import annotations

from proctor.errors import ConfigError
from proctor.prompts.maths import ZERO_SHOT, check_variant
from proctor.types import Message, Prompt, Sample

CHOICE_ZERO_SHOT = (
    "Answer the following multiple-choice question. Think step by step, then end your reply with"
    ' a line of the form "Answer: X" where X is one of {letters}.\n\n{question}'
)


def choice_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    v = check_variant(variant, (ZERO_SHOT,))
    if lang.lower() != "en":
        raise ConfigError(f"this benchmark's prompts are in English only, not {lang!r}")
    letters = sample.metadata.get("letters", "ABCD")
    text = CHOICE_ZERO_SHOT.format(letters=", ".join(letters), question=sample.input)
    return Prompt((Message("user", text),), v, "en")
