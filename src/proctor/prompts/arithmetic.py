"""Arithmetic prompts: variant A (answer only) and B (reason, then a final-answer line), in English
and Chinese. The question is the same paper for every model; only the wording of the rules
changes with the language. No prompt ever offers a tool or asks for code."""

from __future__ import annotations

from typing import Literal

from proctor.errors import ConfigError
from proctor.types import AnswerType, Message, Prompt, Sample

Variant = Literal["A", "B"]
Lang = Literal["en", "zh"]

VARIANTS: tuple[Variant, ...] = ("A", "B")
LANGS: tuple[Lang, ...] = ("en", "zh")

_FORMAT_HINT: dict[Lang, dict[AnswerType, str]] = {
    "en": {
        "integer": "Give the answer as an integer.",
        "decimal": "Give the answer as a decimal number{places}.",
        "fraction": "Give the answer as a fraction in lowest terms, such as 3/4.",
        "comparison": "Answer with a single symbol: <, > or =.",
        "text": "Give the answer only.",
    },
    "zh": {
        "integer": "答案写成整数。",
        "decimal": "答案写成小数{places}。",
        "fraction": "答案写成最简分数，例如 3/4。",
        "comparison": "只用一个符号作答：<、> 或 =。",
        "text": "只写答案。",
    },
}

_PLACES: dict[Lang, str] = {"en": " with {n} decimal places", "zh": "，保留 {n} 位小数"}

_TEMPLATES: dict[tuple[Variant, Lang], str] = {
    ("A", "en"): (
        "Compute the following by yourself, without any tool, calculator or code.\n"
        "Reply with the answer only: no words, no working. {hint}\n\n"
        "{question}"
    ),
    ("B", "en"): (
        "Solve the following arithmetic problem.\n"
        "Rules:\n"
        "1. Do not use any external tool, calculator or code execution, and do not write code.\n"
        "2. Rely only on your own reasoning.\n"
        "3. You may write your reasoning steps, but the last line must be exactly "
        '"Final answer: <number>".\n'
        "4. {hint}\n\n"
        "Problem: {question}"
    ),
    ("A", "zh"): (
        "请不借助任何工具、计算器或代码，自己算出下面的结果。\n"
        "只回答答案本身，不要文字，不要过程。{hint}\n\n"
        "{question}"
    ),
    ("B", "zh"): (
        "请完成以下算术题。\n"
        "要求：\n"
        "1. 不要使用任何外部工具、计算器、代码执行环境，也不要写代码。\n"
        "2. 只能依靠你自己的推理能力计算。\n"
        "3. 你可以写推理步骤，但最后一行必须是“最终答案：<数字>”的格式。\n"
        "4. {hint}\n\n"
        "题目：{question}"
    ),
}


def format_hint(sample: Sample, lang: Lang) -> str:
    hint = _FORMAT_HINT[lang][sample.answer_type]
    places = _PLACES[lang].format(n=sample.decimals) if sample.decimals is not None else ""
    return hint.format(places=places)


def build_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    """The one user message a model sees for `sample`; no system prompt, no tools."""
    v = check_variant(variant)
    la = check_lang(lang)
    text = _TEMPLATES[(v, la)].format(hint=format_hint(sample, la), question=sample.input)
    return Prompt(messages=(Message(role="user", content=text),), variant=v, lang=la)


def check_variant(variant: str) -> Variant:
    for v in VARIANTS:
        if variant.upper() == v:
            return v
    raise ConfigError(f"unknown prompt variant {variant!r}: use A (answer only) or B (reasoning)")


def check_lang(lang: str) -> Lang:
    for la in LANGS:
        if lang.lower() == la:
            return la
    raise ConfigError(f"unknown prompt language {lang!r}: use en or zh")
