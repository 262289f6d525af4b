"""Arithmetic prompts: one user message, no system prompt, the stated answer-format rules."""

from __future__ import annotations

import itertools
from typing import get_args

import pytest

from proctor.errors import ConfigError
from proctor.prompts.arithmetic import LANGS, VARIANTS, build_prompt, check_lang, check_variant
from proctor.types import AnswerType, Sample

ANSWER_TYPES: tuple[AnswerType, ...] = get_args(AnswerType)
QUESTION = "What is 12 + 30?"


def sample(answer_type: AnswerType = "integer", decimals: int | None = None) -> Sample:
    return Sample(id="s1", input=QUESTION, target="42", answer_type=answer_type, decimals=decimals)


@pytest.mark.parametrize(
    ("variant", "lang", "answer_type"), list(itertools.product(VARIANTS, LANGS, ANSWER_TYPES))
)
def test_every_combination_is_one_user_message(
    variant: str, lang: str, answer_type: AnswerType
) -> None:
    decimals = 2 if answer_type == "decimal" else None
    prompt = build_prompt(sample(answer_type, decimals), variant, lang)
    assert len(prompt.messages) == 1
    assert prompt.messages[0].role == "user"
    assert all(m.role != "system" for m in prompt.messages)
    assert QUESTION in prompt.messages[0].content
    assert (prompt.variant, prompt.lang) == (variant, lang)
    # every template placeholder was filled
    assert "{" not in prompt.messages[0].content
    assert "}" not in prompt.messages[0].content


def test_both_variants_and_languages_are_covered() -> None:
    assert set(VARIANTS) == {"A", "B"}
    assert set(LANGS) == {"en", "zh"}


def test_b_en_asks_for_the_final_answer_line() -> None:
    text = build_prompt(sample(), "B", "en").messages[0].content
    assert '"Final answer: <number>"' in text
    assert "last line" in text


def test_b_zh_asks_for_the_final_answer_line() -> None:
    text = build_prompt(sample(), "B", "zh").messages[0].content
    assert "最终答案：<数字>" in text
    assert "最后一行" in text


@pytest.mark.parametrize("lang", LANGS)
def test_variant_a_asks_for_no_final_answer_line(lang: str) -> None:
    text = build_prompt(sample(), "A", lang).messages[0].content
    assert "Final answer" not in text
    assert "最终答案" not in text


@pytest.mark.parametrize("variant", VARIANTS)
def test_prompts_forbid_tools(variant: str) -> None:
    en = build_prompt(sample(), variant, "en").messages[0].content
    zh = build_prompt(sample(), variant, "zh").messages[0].content
    assert "without any tool" in en or "Do not use any external tool" in en
    assert "工具" in zh


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("places", [1, 3, 7])
def test_decimal_hint_states_the_number_of_places(variant: str, places: int) -> None:
    en = build_prompt(sample("decimal", places), variant, "en").messages[0].content
    zh = build_prompt(sample("decimal", places), variant, "zh").messages[0].content
    assert f"with {places} decimal places" in en
    assert f"保留 {places} 位小数" in zh


def test_decimal_hint_without_places_names_no_count() -> None:
    en = build_prompt(sample("decimal", None), "B", "en").messages[0].content
    assert "Give the answer as a decimal number." in en
    assert "decimal places" not in en


@pytest.mark.parametrize(
    ("answer_type", "fragment"),
    [
        ("integer", "integer"),
        ("fraction", "lowest terms"),
        ("comparison", "<, > or ="),
    ],
)
def test_format_hint_follows_the_answer_type(answer_type: AnswerType, fragment: str) -> None:
    assert fragment in build_prompt(sample(answer_type), "B", "en").messages[0].content


def test_question_with_braces_is_inserted_verbatim() -> None:
    s = Sample(id="b", input="{0} + {x} = ?", target="1")
    assert "{0} + {x} = ?" in build_prompt(s, "A", "en").messages[0].content


def test_prompt_is_deterministic() -> None:
    assert build_prompt(sample(), "B", "zh") == build_prompt(sample(), "B", "zh")


def test_variant_and_lang_are_case_insensitive() -> None:
    assert check_variant("b") == "B"
    assert check_lang("ZH") == "zh"


@pytest.mark.parametrize("variant", ["C", "", "AB", "answer"])
def test_bad_variant_is_a_config_error(variant: str) -> None:
    with pytest.raises(ConfigError, match="unknown prompt variant"):
        build_prompt(sample(), variant, "en")


@pytest.mark.parametrize("lang", ["fr", "", "english", "zh-cn"])
def test_bad_lang_is_a_config_error(lang: str) -> None:
    with pytest.raises(ConfigError, match="unknown prompt language"):
        build_prompt(sample(), "B", lang)
