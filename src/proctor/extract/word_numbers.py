"""Number words in the last-number fallback: a reply whose last stated number is written in words
("so she has twelve apples left", "il lui reste donc douze pommes", "还剩十二个苹果") answers
with it, as it would with digits.

Decisions, stated once:
- English words and Chinese numerals are read by the one quantity reader
  (`extract.quantities`); French, German, Spanish, Italian and Portuguese words by the small
  tables below, in a reply in that language only (Italian "sei" is 6, German "sei" is "be").
- The words for one ("un", "une", "ein", "uno", "um"…) are articles and never counted, as the
  quantity reader never counts English "one" alone; bare scale words ("mille", "hundert") are
  no number either.
- Only a word after the last digit of the reply, in its last sentence, is its last number: a
  word earlier than a digit answer changes nothing.
"""

from __future__ import annotations

import re
from fractions import Fraction

from proctor.extract.quantities import find_quantities, show

_TABLES_TEXT = {
    "fr": "zéro:0 deux:2 trois:3 quatre:4 cinq:5 six:6 sept:7 huit:8 neuf:9 dix:10 onze:11"
    " douze:12 treize:13 quatorze:14 quinze:15 seize:16 dix-sept:17 dix-huit:18 dix-neuf:19"
    " vingt:20 trente:30 quarante:40 cinquante:50 soixante:60",
    "de": "null:0 zwei:2 drei:3 vier:4 fünf:5 sechs:6 sieben:7 acht:8 neun:9 zehn:10 elf:11"
    " zwölf:12 dreizehn:13 vierzehn:14 fünfzehn:15 sechzehn:16 siebzehn:17 achtzehn:18"
    " neunzehn:19 zwanzig:20 dreißig:30 vierzig:40 fünfzig:50",
    "es": "cero:0 dos:2 tres:3 cuatro:4 cinco:5 seis:6 siete:7 ocho:8 nueve:9 diez:10 once:11"
    " doce:12 trece:13 catorce:14 quince:15 dieciséis:16 diecisiete:17 dieciocho:18"
    " diecinueve:19 veinte:20 treinta:30 cuarenta:40 cincuenta:50",
    "it": "zero:0 due:2 tre:3 quattro:4 cinque:5 sei:6 sette:7 otto:8 nove:9 dieci:10 undici:11"
    " dodici:12 tredici:13 quattordici:14 quindici:15 sedici:16 diciassette:17 diciotto:18"
    " diciannove:19 venti:20 trenta:30 quaranta:40 cinquanta:50",
    "pt": "zero:0 dois:2 duas:2 três:3 quatro:4 cinco:5 seis:6 sete:7 oito:8 nove:9 dez:10"
    " onze:11 doze:12 treze:13 catorze:14 quinze:15 dezesseis:16 dezessete:17 dezoito:18"
    " dezenove:19 vinte:20 trinta:30 quarenta:40 cinquenta:50",
}
_TABLES = {
    language: {word: int(value) for word, value in (p.split(":") for p in text.split())}
    for language, text in _TABLES_TEXT.items()
}
_WORD = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)*(?![\w-])")
_DIGIT = re.compile(r"\d")
_SENTENCE_BREAK = re.compile(r"[.!?。！？\n](?:\s|$)|[。！？]")


def word_numbers(text: str, language: str) -> list[tuple[int, Fraction]]:
    """Every number word of `text` as (where it starts, its value), in order: the table of the
    reply's language, then English words and Chinese numerals (the quantity reader)."""
    found: dict[int, Fraction] = {}
    table = _TABLES.get(language)
    if table is not None:
        for m in _WORD.finditer(text):
            value = table.get(m.group().casefold())
            if value is not None:
                found[m.start()] = Fraction(value)
    for q in find_quantities(text):  # read whole: "4000千克" is 4000 kg, never 千 (1000)
        if q.kind == "number" and q.words:
            found.setdefault(q.start, q.value)
    return sorted(found.items())


def last_word_number(text: str, language: str) -> str | None:
    """The value (in digits) of the number word that is the last number of `text`, in its last
    sentence; None when a digit comes after it or there is none."""
    body = text.rstrip(" \t\n.!?。！？*")
    sentence = max((m.end() for m in _SENTENCE_BREAK.finditer(body)), default=0)
    last = body[sentence:]
    digit = max((m.end() for m in _DIGIT.finditer(last)), default=0)
    words = [w for w in word_numbers(last, language) if w[0] >= digit]
    return show(words[-1][1]) if words else None
