"""Answer markers in the languages models answer in, beyond those `extract.maths` names itself
(English, Chinese, French, German, Spanish, Portuguese, Italian, Russian, Japanese, Korean):
the words that introduce a final answer, each followed by its copula or a colon.

The word for "answer" in each language is the one lighteval's multilingual templates use
(huggingface/lighteval, src/lighteval/tasks/templates/utils/translation_literals.py, MIT):
learnt from, not copied; the copulas are the languages' own.
"""

from __future__ import annotations

import unicodedata

LANGUAGE_MARKERS = unicodedata.normalize(
    "NFKC",
    "|".join(
        (
            r"(?:الإجابة|الجواب)(?:\s+النهائية)?\s*(?:هي|هو|[:：])",  # Arabic
            r"(?:अंतिम\s+)?उत्तर\s*(?:है|[:：])",  # Hindi
            r"\b(?:cevap|yanıt|sonuç)\s*[:：]",  # Turkish
            r"\bjawaban(?:nya)?(?:\s+akhir(?:nya)?)?\s*(?:adalah\b|[:：])",  # Indonesian
            r"(?:đáp\s+án|câu\s+trả\s+lời)(?:\s+cuối\s+cùng)?\s*(?:là\b|[:：])",  # Vietnamese
            r"\b(?:het\s+)?(?:eind)?antwoord\s*(?:is\b|[:：])",  # Dutch
            r"(?:پاسخ|جواب)(?:\s+نهایی)?\s*(?:[:：]|برابر\s+است\s+با)",  # Persian
            r"คำตอบ(?:สุดท้าย)?\s*(?:คือ|[:：])",  # Thai
        )
    ),
)
"""One alternative of the maths extraction's marker pattern (matched case-insensitively), in
NFKC as the replies it reads are (Thai ำ is decomposed there)."""
