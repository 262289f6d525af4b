"""The language a reply is written in, told from its script and its commonest words, so that
its numbers are read by its own conventions (`extract.local_numbers`).

Decisions, stated once:
- Script first: kana → ja; Hangul → ko; Han without kana → zh; Arabic script with a Persian
  letter (پ چ ژ گ) or Persian digits → fa, otherwise → ar; Cyrillic → ru; Devanagari → hi;
  Thai → th.
- Latin script: Vietnamese by its own letters (ơ, ư, đ and the stacked tones ạ ả ấ ầ …);
  otherwise each language's commonest function words are counted, and a language wins with
  more hits than any other; Turkish letters (ı, ğ, ş) count as hits for Turkish.
- Otherwise the language is not told ("" — a bare expression, or too few words): a number form
  whose reading depends on the language is then ambiguous.
- Only words outside LaTeX commands are counted; the list is short on purpose (it tells the
  number conventions, not the language of a whole page).
"""

from __future__ import annotations

import re
from collections import Counter

_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_HAN = re.compile(r"[\u3400-\u9fff]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")
_PERSIAN = re.compile(r"[پچژگ۰-۹]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_DEVANAGARI = re.compile(r"[\u0900-\u097f]")
_THAI = re.compile(r"[\u0e00-\u0e7f]")
_VIETNAMESE = re.compile(r"[ơưđạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
_TURKISH = re.compile(r"[ıİğĞşŞ]")
_WORD = re.compile(r"(?<!\\)\b[^\W\d_]+\b")
_SCRIPTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_KANA, "ja"),
    (_HANGUL, "ko"),
    (_HAN, "zh"),
    (_ARABIC, "ar"),  # Persian's own letters make it "fa"; its digits ۰-۹ are in this block
    (_CYRILLIC, "ru"),
    (_DEVANAGARI, "hi"),
    (_THAI, "th"),
    (_VIETNAMESE, "vi"),
)
"""The scripts that tell a language by themselves, the first found wins (kana before the Han
characters Japanese shares with Chinese)."""


_WORD_LIST = {
    "en": "the is are and of to so answer total we has have then each therefore",
    "de": "der die das und ist sind ein eine also insgesamt hat mit für von nicht antwort"
    " ergebnis lösung",
    "fr": "le la les est sont et des une donc il elle par pour avec total du réponse résultat",
    "es": "el la los las es son y una por para con entonces tiene del total respuesta resultado",
    "pt": "o os as é são e um uma por para com então tem do da total resposta resultado portanto",
    "it": "il lo gli è sono e un una per con quindi ha del della totale la risposta risultato"
    " di che non",
    "tr": "ve bir bu için ile toplam cevap sonuç olarak kadar yanıt cevabı",
    "id": "dan yang adalah untuk dengan jadi total jawaban ini itu memiliki jawabannya hasil",
    "nl": "de het een en is zijn van met dus totaal heeft antwoord resultaat",
}
_FUNCTION_WORDS = {language: frozenset(words.split()) for language, words in _WORD_LIST.items()}
"""Each language's commonest short words; "il"/"e"/"la" are shared on purpose (a tie is no
language)."""


def reply_language(text: str) -> str:
    """The language code of `text` ("en", "de", "zh", …), or "" when it cannot be told."""
    for script, language in _SCRIPTS:
        if script.search(text):
            return "fa" if language == "ar" and _PERSIAN.search(text) else language
    words = [w.casefold() for w in _WORD.findall(text)]
    hits: Counter[str] = Counter()
    for language, known in _FUNCTION_WORDS.items():
        hits[language] = sum(w in known for w in words)
    hits["tr"] += len(_TURKISH.findall(text))
    ranked = hits.most_common(2)
    best, count = ranked[0]
    if count >= 1 and (len(ranked) < 2 or count > ranked[1][1]):
        return best
    return ""
