"""The shortcut for plain replies ("Final answer: 42" last, or "42" alone) gives exactly what
the extraction rules give, and the whole grade is the same with and without it.

Walked: every text of the case tables and the generated corpus of the other shortcuts' tests,
plus the plain shapes themselves and near misses of them (case, spacing, punctuation, signs,
leading zeros, grouping, scale and hedge words, decoration, markers before and after, tags,
non-ASCII), and random one-character mutations of the plain shapes.
"""

from __future__ import annotations

import random

import pytest

from proctor.extract import answer
from proctor.extract.answer import extract_answer
from proctor.extract.plain_answer import plain_answer
from proctor.score.numeric import grade
from proctor.types import AnswerType, Extraction, Sample

from .test_fast_paths import _PIECES, TEXTS

_NUMBERS = [
    "0", "7", "42", "178377", "-5", "-0", "12.5", "0.25", "-3.125", "3.0", "10.50", "00", "007",
    "1,234", "1 234", "3/4", "1e5", ".5", "5.", "+5", "- 5", "1" * 40, "1" * 41, "9" * 45,
    "0.000", "١٢", "４２", "5%",
]  # fmt: skip
_PREFIXES = [
    "", "Step 1: work.\n", "4821 × 37 = 178377\n", "The answer is not 5.\n", "final answer: 3\n",
    "Final answer: 3\n", "#### 9\n", "Answer: 8\n", "<think>Final answer: 1</think>\n",
    "**Final answer: 2**\n", "We have 7 and 3.\n\n", "I used a calculator.\n", "答案是 4\n",
    "Final answer:\n", "x = 5, so\n", "Final answer: 6 or 7\n", "\\boxed{5}\n", "Final\n",
]  # fmt: skip
_LINES = [
    "Final answer: {n}", "final answer: {n}", "Final Answer: {n}", "Final answer:  {n}",
    "Final answer:{n}", "Final answer: {n}.", "Final answer: {n}\n", "Final answer: {n} ",
    "Final answer: {n} million", "Final answer: {n} or 8", "Final answer: not {n}",
    "Final answer: {n} (= 6 × 7)", "Final answer: {n}\nFinal answer: 9", "Final answer is {n}",
    "Final answer: **{n}**", "Final answer: ${n}$", "Final answer: {n}\n####", "{n}", " {n}",
    "{n}.", "{n}\n", "Final answer: {n} thousand", "Final answer: {n}万", "Final answer: = {n}",
    "Final answer: {n}</think>", "Final answer: {n}\u00a0", "Final answer: minus {n}",
]  # fmt: skip


def _shapes() -> list[str]:
    return [p + line.format(n=n) for p in _PREFIXES for line in _LINES for n in _NUMBERS]


def _mutations(n: int = 3000) -> list[str]:
    rng = random.Random(20261201)
    plain = [p + "Final answer: " + k for p in _PREFIXES[:3] for k in _NUMBERS[:12]]
    plain += _NUMBERS[:12]
    out = []
    for _ in range(n):
        text = rng.choice(plain)
        at = rng.randint(0, len(text))
        piece = rng.choice([*_PIECES, "0", "9", "-", ".", " ", "\n", "F", "a"])
        cut = rng.randint(0, 2)
        out.append(text[:at] + piece + text[at + cut :])
    return out


CORPUS = TEXTS + _shapes() + _mutations()
TAKEN = [t for t in CORPUS if plain_answer(t) is not None]
"""Where the shortcut answers (elsewhere `extract_answer` is the rules themselves)."""
_TYPES: tuple[AnswerType, ...] = ("integer", "decimal", "fraction")


def test_the_corpus_takes_the_shortcut_often_and_misses_it_often() -> None:
    assert len(TAKEN) > 500
    assert len(CORPUS) - len(TAKEN) > 5000
    assert {rule for _, rule in filter(None, map(plain_answer, TAKEN))} == {
        "bare_answer",
        "final_answer_line",
    }


def _extractions(texts: list[str], answer_type: AnswerType) -> list[Extraction]:
    return [
        extract_answer(
            text, variant=variant, question="What is 42 * 7?", operands=operands,
            answer_type=answer_type,
        )
        for text in texts
        for variant in ("A", "B", "C")
        for operands in ((), ("42", "7"))
    ]  # fmt: skip


def _without_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer, "plain_answer", lambda text: None)


@pytest.mark.parametrize("answer_type", _TYPES)
def test_the_shortcut_answers_as_the_rules_do(
    monkeypatch: pytest.MonkeyPatch, answer_type: AnswerType
) -> None:
    fast = _extractions(TAKEN, answer_type)
    _without_the_shortcut(monkeypatch)
    full = _extractions(TAKEN, answer_type)
    texts = [t for t in TAKEN for _ in range(6)]
    bad = [(t, a, b) for t, a, b in zip(texts, fast, full, strict=True) if a != b]
    assert not bad, bad[:5]
    assert len(fast) == len(full) == 6 * len(TAKEN)


def test_no_shortcut_for_comparison_or_text_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["Final answer: 5", "5", "Step 1.\nFinal answer: -2.5"]
    fast = [
        extract_answer(t, variant="B", answer_type=a) for t in texts for a in ("comparison", "text")
    ]  # type: ignore[arg-type]
    _without_the_shortcut(monkeypatch)
    full = [
        extract_answer(t, variant="B", answer_type=a) for t in texts for a in ("comparison", "text")
    ]  # type: ignore[arg-type]
    assert fast == full


def test_every_grade_is_the_same_without_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole Score (outcome, rule, explanation, extracted, normalized, format_ok), also for
    replies cut off by max_tokens, against targets of every numeric type."""
    samples = [
        Sample("i", "What is 40 + 2?", "42", answer_type="integer", metadata={"operands": "40 2"}),
        Sample("d", "What is 2.5 * 5?", "12.5", answer_type="decimal", decimals=1),
        Sample("f", "What is 1/2 + 1/4?", "3/4", answer_type="fraction"),
        Sample("n", "What is 2 - 7?", "-5", answer_type="integer"),
        Sample("b", "What is 1 + 1?", "two", answer_type="integer"),
    ]
    # the generated shapes at a stride of their own: rows added to the case tables do not move it
    generated = CORPUS[len(TEXTS) :]
    texts = TAKEN + TEXTS[:: max(1, len(TEXTS) // 200)]
    texts += generated[:: max(1, len(generated) // 800)]
    cases = [(t, f, s) for t in texts for f in ("stop", "length") for s in samples]
    fast = [grade(t, f, s, variant="B") for t, f, s in cases]  # type: ignore[arg-type]
    _without_the_shortcut(monkeypatch)
    full = [grade(t, f, s, variant="B") for t, f, s in cases]  # type: ignore[arg-type]
    bad = [(c, a, b) for c, a, b in zip(cases, fast, full, strict=True) if a != b]
    assert not bad, bad[:5]
    assert sum(s.outcome == "correct" for s in fast) > 100
