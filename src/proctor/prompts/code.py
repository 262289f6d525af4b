"""Code prompts: HumanEval (zero-shot, its convention) and MBPP (zero-shot, or the 3-shot prompt
of the MBPP paper with tasks 2, 3 and 4 as examples, given as earlier user/assistant turns)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.errors import ConfigError
from proctor.prompts.maths import FEW_SHOT, ZERO_SHOT, check_variant
from proctor.types import Message, Prompt, Sample

HUMANEVAL_ZERO_SHOT = (
    "Complete the following Python function. Reply with the complete function, including the"
    " imports and signature given, in a single ```python code block.\n\n```python\n{prompt}```"
)

MBPP_TASK = (
    "You are an expert Python programmer, and here is your task: {text} Your code should pass"
    " these tests:\n\n{tests}"
)
MBPP_ZERO_SHOT_TAIL = "\n\nReply with the code in a single ```python code block."


@dataclass(frozen=True)
class MbppExample:
    text: str
    tests: tuple[str, ...]
    code: str


def _lang(lang: str) -> str:
    if lang.lower() != "en":
        raise ConfigError(f"this benchmark's prompts are in English only, not {lang!r}")
    return "en"


def humaneval_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    v = check_variant(variant, (ZERO_SHOT,))
    text = HUMANEVAL_ZERO_SHOT.format(prompt=sample.input)
    return Prompt((Message("user", text),), v, _lang(lang))


def mbpp_prompt(
    sample: Sample,
    variant: str,
    lang: str,
    *,
    tests: Sequence[str],
    examples: Sequence[MbppExample],
) -> Prompt:
    v = check_variant(variant, (ZERO_SHOT, FEW_SHOT))
    la = _lang(lang)
    task = MBPP_TASK.format(text=sample.input, tests="\n".join(tests))
    if v == ZERO_SHOT:
        return Prompt((Message("user", task + MBPP_ZERO_SHOT_TAIL),), v, la)
    turns: list[Message] = []
    for ex in examples:
        turns += [
            Message("user", MBPP_TASK.format(text=ex.text, tests="\n".join(ex.tests))),
            Message("assistant", f"[BEGIN]\n{ex.code}\n[DONE]"),
        ]
    turns.append(Message("user", task))
    return Prompt(tuple(turns), v, la)
