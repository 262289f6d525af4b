"""The one reader of local number forms: each language's decimal and grouping marks, other
scripts' digits, scale words; ambiguous forms carry their other reading."""

from __future__ import annotations

import pytest

from proctor.extract.languages import reply_language
from proctor.extract.local_numbers import read_local_numbers


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Die Antwort ist 3,5.", "de"),
        ("La réponse est 3,5 kg.", "fr"),
        ("La risposta è 70.000 euro.", "it"),
        ("A resposta é 70 mil reais.", "pt"),
        ("Cevap: 70.000 TL", "tr"),
        ("Jawabannya adalah 70.000 rupiah.", "id"),
        ("Đáp án là 70.000 đồng.", "vi"),
        ("Ответ: 3,5", "ru"),
        ("الإجابة هي ٣٫٥", "ar"),
        ("پاسخ ۱۲۰ است", "fa"),
        ("答案是7万。", "zh"),
        ("答えは12です。", "ja"),
        ("정답은 7만 원입니다.", "ko"),
        ("The answer is 1.234", "en"),
        ("1.234", ""),
    ],
)
def test_the_language_is_told_from_script_and_common_words(text: str, language: str) -> None:
    assert reply_language(text) == language


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Die Antwort ist 3,5.", "Die Antwort ist 3.5."),
        ("Die Antwort ist 70.000 Euro.", "Die Antwort ist 70000 Euro."),
        ("Die Lösung ist 70.000,50 Euro.", "Die Lösung ist 70000.50 Euro."),
        ("الإجابة هي ٣٫٥", "الإجابة هي 3.5"),
        ("उत्तर है १२०", "उत्तर है 120"),
        ("答案是3萬。", "答案是3万。"),
        ("정답은 7만 원입니다.", "정답은 7万 원입니다."),
        ("La respuesta es 70 mil.", "La respuesta es 70000."),
        ("The answer is 1,20,000 rupees.", "The answer is 120000 rupees."),
        ("The answer is 2 lakh rupees.", "The answer is 200000 rupees."),
        ("The answer is 3 crore.", "The answer is 30000000."),
        ("La réponse est 70\u202f000 euros.", "La réponse est 70000 euros."),
        ("Ответ: 1\u00a0234,5", "Ответ: 1234.5"),
        # never a decimal comma: a pair in brackets, LaTeX maths, an English reply
        ("Die Antwort ist (3,5).", "Die Antwort ist (3,5)."),
        ("Die Antwort ist $3,5$.", "Die Antwort ist $3,5$."),
        ("The answer is 3,5.", "The answer is 3,5."),
        ("The answer is 70 mil.", "The answer is 70 mil."),
        ("The answer is 1.234", "The answer is 1.234"),
    ],
)
def test_local_forms_are_read_by_the_language(text: str, read: str) -> None:
    reading = read_local_numbers(text)
    assert reading.text == read
    assert reading.alternative is None


@pytest.mark.parametrize(
    ("text", "read", "other"),
    [
        ("1.234", "1.234", "1234"),
        ("La réponse est 1.234", "La réponse est 1.234", "La réponse est 1234"),
        (
            "Die Antwort ist 3,500 Euro.",
            "Die Antwort ist 3.500 Euro.",
            "Die Antwort ist 3500 Euro.",
        ),
    ],
)
def test_an_ambiguous_form_carries_its_other_reading(text: str, read: str, other: str) -> None:
    reading = read_local_numbers(text)
    assert (reading.text, reading.alternative) == (read, other)
    assert "decimal" in reading.ambiguity
