"""Answer markers in the languages models answer in, beyond those `extract.maths` names itself
(English, Chinese, French, German, Spanish, Portuguese, Italian, Russian, Japanese, Korean):
the words that introduce a final answer, each followed by its copula or a colon.

The phrases are written for proctor from each language's own usage (no peer's code or
table copied); lighteval's multilingual extraction tests are walked against them as a peer
table (tests/peers/cases/lighteval.json).
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
