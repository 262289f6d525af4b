"""The shortcuts in extraction agree with the full path they skip.

`normalize_text`, `strip_decoration`, `strip_reasoning` and `find_violation` skip their regex
passes when the text lacks what every match needs; `parse_number` is cached; a number's value is
built from its digits. Each is checked here against the full path it replaces (written out as
it was before the shortcut), on every text of the case tables and on generated replies.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest

from proctor.extract import normalize, reasoning, violation
from proctor.extract.normalize import (
    clean_text,
    find_numbers,
    normalize_text,
    parse_number,
    strip_decoration,
)
from proctor.extract.reasoning import strip_reasoning
from proctor.extract.violation import find_violation

TESTS = Path(__file__).parent.parent


def _table_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((TESTS / "score" / "cases" / "grading").glob("*.json")):
        table = json.loads(path.read_text(encoding="utf-8"))
        rows = table["rows"] if isinstance(table, dict) else table
        texts += [row["text"] for row in rows if "text" in row]
    for path in sorted((TESTS / "extract" / "cases" / "benchmarks").glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))["cases"]
        texts += [row["text"] for row in rows if "text" in row]
    return texts


# Pieces that trigger (or nearly trigger) every rule: LaTeX, markdown, look-alike characters,
# grouping spaces, reasoning tags, code and tool claims, in English and Chinese.
_PIECES = [
    "1", "23", "456", "7,890", "1,23", "0.5", ".5", "12,5", "3/4", "6/8", "1/0", "-", "+", "−",
    "–", "—", "﹣", "－", "⁄", "%", " %", "\u202f", "\u00a0", "\u2009", "\u2007", " ", "\n",
    "\\frac", "\\dfrac", "{", "}", "{,}", "\\,", "\\;", "\\!", "\\ ", "\\boxed", "\\text",
    "\\mathrm", "\\displaystyle", "\\times", "\\div", "\\cdot", "\\approx", "\\le", "\\leq",
    "\\geqslant", "\\ne", "\\lt", "\\gt", "\\left", "\\right", "\\(", "\\)", "\\[", "\\]", "\\%",
    "&lt;", "&gt;", "&amp;", "$", "*", "**", "_", "__", "`", "```", "```python\n", "x", "abc",
    "Final answer:", "最终答案：", "答案是", "=", "≈", "<", ">", "(", ")", "。", "，", "１２", "：",
    "ﬁ", "½", "é", ".", ",", ";", "#", "####", "\\\\", "\\timesx", "<think>", "</think>",
    "<Reasoning>", "</THINKING>", "Python", "CALCULATOR", "calculator", "code", "def f(x):",
    "print(", "import os", ">>> ", "I used", "we ran", "using", "let me run", "without", "not",
    "用计算器", "不使用", "代码如下", "程序显示", "ſcript", "\u212a", "ı", "İ", "٣", "\U0001d7d9",
]  # fmt: skip


def _generated(n: int = 4000) -> list[str]:
    rng = random.Random(20261129)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 16))) for _ in range(n)]


TEXTS = _table_texts() + _generated()


# -- the full paths, as they were before the shortcuts ------------------------------------------


def full_normalize_text(text: str) -> str:
    spaces = normalize._GROUP_SPACES
    text = normalize._SPACED_GROUPS.sub(lambda m: re.sub(f"[{spaces}]", ",", m.group()), text)
    text = normalize._VULGAR_AFTER_DIGIT.sub(" ", text)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(normalize._MINUS_LOOKALIKES)
    return normalize._DASH_AS_SIGN.sub("-", text)


def full_strip_decoration(text: str) -> str:
    text = normalize._FRAC.sub(normalize._fraction, text)
    text = normalize._FRAC_SHORT.sub(normalize._fraction, text)
    previous = None
    while previous != text:
        previous, text = text, normalize._UNWRAP.sub(r"\1", text)
    for _, pattern, replacement in normalize._LATEX_SYMBOLS:
        text = pattern.sub(replacement, text)
    text = text.replace("$", "")
    text = normalize._MARKDOWN_EMPHASIS.sub("", text)
    return normalize._SINGLE_STAR.sub(r"\1", text)


def full_strip_reasoning(text: str) -> str:
    text = reasoning._BLOCK.sub("", text)
    closing = list(reasoning._CLOSE.finditer(text))
    if closing:
        text = text[closing[-1].end() :]
    opening = reasoning._OPEN.search(text)
    if opening:
        text = text[: opening.start()]
    return text


def full_find_violation(text: str) -> str | None:
    text = full_normalize_text(text)
    for fence in violation._FENCE.finditer(text):
        language = fence.group(1).lower()
        if language in violation._CODE_LANGUAGES:
            return f"wrote a {language} code block"
        if violation._CODE_LINE.search(fence.group(2)):
            return "wrote a code block"
    code_line = violation._CODE_LINE.search(text)
    if code_line:
        line_start = text.rfind("\n", 0, code_line.start()) + 1
        line_end = text.find("\n", code_line.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        return f"wrote code: {violation._one_line(line)!r}"
    for claim in violation._CLAIM.finditer(text):
        if violation._NEGATION.search(violation._clause_before(text, claim.start())):
            continue
        return f"claims to use a calculator, code or a tool: {violation._one_line(claim.group())!r}"
    return None


def full_decimal_value(token_text: str) -> Fraction:
    """A decimal token's value the way it used to be computed: from its decimal string."""
    sign = -1 if token_text.startswith("-") else 1
    digits = token_text.lstrip("+-").rstrip("% ").replace(",", "")
    value = Fraction(f"0{digits}" if digits.startswith(".") else digits) * sign
    return value / 100 if token_text.endswith("%") else value


# -- the checks ---------------------------------------------------------------------------------


def test_the_corpus_reaches_every_shortcut() -> None:
    assert len(TEXTS) > 4000
    assert sum(t.isascii() for t in TEXTS) > 100
    assert sum(not t.isascii() for t in TEXTS) > 100
    assert sum(normalize.DECORATION.search(t) is None for t in TEXTS) > 100
    assert sum("<" not in t for t in TEXTS) > 100


def test_normalize_text_agrees_with_the_full_path() -> None:
    bad = [t for t in TEXTS if normalize_text(t) != full_normalize_text(t)]
    assert not bad, bad[:5]


def test_strip_decoration_agrees_with_the_full_path() -> None:
    for text in TEXTS:
        for form in (text, full_normalize_text(text)):
            assert strip_decoration(form) == full_strip_decoration(form), form
    # one step can make what a later one needs: unwrapping "\text{times}" leaves "\times"
    made = r"2 \\text{times} 3"
    assert strip_decoration(made) == full_strip_decoration(made) == "2 × 3"


def test_strip_reasoning_agrees_with_the_full_path() -> None:
    bad = [t for t in TEXTS if strip_reasoning(t) != full_strip_reasoning(t)]
    assert not bad, bad[:5]


def test_find_violation_agrees_with_the_full_path() -> None:
    bad = [t for t in TEXTS if find_violation(t) != full_find_violation(t)]
    assert not bad, bad[:5]
    assert sum(full_find_violation(t) is not None for t in TEXTS) > 50


def test_parse_number_cache_gives_what_a_fresh_parse_gives() -> None:
    parse_number.cache_clear()
    for text in TEXTS + TEXTS[:500]:
        assert parse_number(text) == parse_number.__wrapped__(text), text


@pytest.mark.parametrize("text", ["1.50", "-0.125", ".5", "1,234.05", "12.5%", "٣.٥", "0.0"])
def test_decimal_values_equal_the_decimal_string_reading(text: str) -> None:
    (token,) = [t for _, _, t in find_numbers(text)]
    assert token.value == full_decimal_value(token.text)


def test_every_decimal_token_of_the_corpus_has_its_decimal_string_value() -> None:
    tokens = [t for text in TEXTS for _, _, t in find_numbers(clean_text(text))]
    decimals = [t for t in tokens if t.kind == "decimal" and "." in t.text]
    assert len(decimals) > 100
    for token in decimals:
        assert token.value == full_decimal_value(token.text), token


def test_token_cache_gives_what_a_fresh_read_gives() -> None:
    """A token is cached by the text its match covers: the same text in other surroundings
    (another sign before it, a letter after it) must read the same."""
    normalize._TOKENS.clear()
    matches = [m for text in TEXTS for m in normalize._NUMBER.finditer(clean_text(text))]
    assert len(matches) > 3000
    assert len({m.group() for m in matches}) < len(matches) / 2  # most are cache hits
    for match in matches + matches[:1000]:
        assert normalize._token(match) == normalize._read_token(match), match
