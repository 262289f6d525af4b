"""Numbers written by a language's own conventions, read the way that language reads them: the
one reader of local number forms, run on a reply before any answer rule reads it.

Decisions, stated once (the language is `extract.languages.reply_language`'s):
- Digits of other scripts are digits: Arabic-Indic (٠–٩), Persian (۰–۹), Devanagari (०–९) and
  Bengali (০–৯); the Arabic decimal separator ٫ is a decimal point and ٬ a thousands
  separator. Full-width digits and the Unicode minus are `normalize`'s.
- Decimal comma: in a reply in German, French, Spanish, Portuguese, Italian, Russian, Turkish,
  Indonesian, Vietnamese or Dutch, "3,5" is 3.5. "3,500" there (three digits after one comma)
  is 3.5 by the language and 3500 by the English habit many models keep: ambiguous.
- Thousands dots: in German, Italian, Turkish, Vietnamese, Indonesian, Spanish, Portuguese and
  Dutch, "70.000" is 70000 and "70.000,5" is 70000.5. In French and Russian (which group with
  spaces), and in a reply whose language cannot be told, a single group "1.234" is 1.234 or
  1234: ambiguous. Several groups ("1.234.567") are thousands in any language that groups with
  dots or spaces.
- Forms inside LaTeX maths ($…$, \\(…\\), \\[…\\], \\boxed{…}) are left as written: LaTeX writes
  decimal points and lists with commas.
- A comma form in brackets ("(3,5)", "{3,5}") is a pair or a set, never a decimal.
- Groups joined by a no-break, figure, thin or narrow space ("70 000" as French and Russian
  write it) are thousands in any language, never a list nor a decimal.
- Indian grouping "1,20,000" is 120000 in any language (no other convention writes it), and so
  are lakh (10⁵) and crore (10⁷) after a number.
- Scale words: traditional 萬 and 億 are 万 and 亿; Korean 만, 억 and 천 after a number are 万, 亿
  and 千; "mil" after a number in a Spanish or Portuguese reply is a thousand ("70 mil" is 70000;
  "mil millones" is left as written).
- An ambiguous form is read by the language's reading (the first one above); `alternative` is
  the reply with every ambiguous form read the other way, and a grader that reaches different
  verdicts on the two leaves the reply unscored with `ambiguity` as the reason: never correct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from proctor.extract.languages import reply_language

_DIGITS = str.maketrans(
    {
        **{chr(0x0660 + i): str(i) for i in range(10)},
        **{chr(0x06F0 + i): str(i) for i in range(10)},
        **{chr(0x0966 + i): str(i) for i in range(10)},
        **{chr(0x09E6 + i): str(i) for i in range(10)},
        "\u066b": ".",
        "\u066c": ",",
        "萬": "万",
        "億": "亿",
    }
)
DECIMAL_COMMA = frozenset({"de", "fr", "es", "pt", "it", "ru", "tr", "id", "vi", "nl"})
DOT_GROUPS = frozenset({"de", "it", "tr", "vi", "id", "es", "pt", "nl"})
_GROUP_SPACE = re.compile("[\u00a0\u2007\u2009\u202f]")
_SPACE_GROUPED = re.compile(
    r"(?<![\d.,])[1-9]\d{0,2}(?:[\u00a0\u2007\u2009\u202f]\d{3})+(?![\d]|[.,]\d{3})"
)
_MATHS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]|\\boxed\{[^{}]*\}", re.DOTALL)
_INDIAN = re.compile(r"(?<![\d,.])\d{1,2}(?:,\d{2})+,\d{3}(?![\d]|[.,]\d)")
_LAKH = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)\s*(lakhs?|lacs?|crores?)(?![A-Za-z])", re.I)
_KOREAN_SCALE = re.compile(r"(?<=[\d万亿千])\s?([만억천])")
_MIL = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)\s+mil(?![A-Za-zÀ-ÿ])(?!\s+mill)", re.I)
_DOT_GROUPED = re.compile(r"(?<![\d.,])([1-9]\d{0,2}(?:\.\d{3})+)(,\d+)?(?![\d]|[.,]\d)")
_ONE_DOT_GROUP = re.compile(r"(?<![\d.,])[1-9]\d{0,2}\.\d{3}(?![\d]|[.,]\d)")
_COMMA_DECIMAL = re.compile(r"(?<![\d.,])(-?\d+),(\d+)(?![\d]|[.,]\d)")
_DOT_DECIMAL = frozenset({"en", "zh", "ja", "ko", "hi", "th", "ar", "fa"})
"""Languages whose decimal mark is the point (and whose thousands mark is the comma)."""
_OPENERS = "([{"
_CLOSERS = ")]}"


@dataclass(frozen=True)
class LocalReading:
    text: str
    language: str
    alternative: str | None = None
    ambiguity: str = ""


def _digits(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.10g}"


def _outside_maths(text: str, pattern: re.Pattern[str], replace: object) -> str:
    """`pattern.sub(replace, …)` on the parts of `text` outside LaTeX maths."""
    parts: list[str] = []
    last = 0
    for m in _MATHS.finditer(text):
        parts.append(pattern.sub(replace, text[last : m.start()]))  # type: ignore[call-overload]
        parts.append(m.group())
        last = m.end()
    parts.append(pattern.sub(replace, text[last:]))  # type: ignore[call-overload]
    return "".join(parts)


def _scales(text: str, language: str) -> str:
    text = _INDIAN.sub(lambda m: m.group().replace(",", ""), text)
    factor = {"l": 10**5, "c": 10**7}
    text = _LAKH.sub(lambda m: _digits(Fraction(m.group(1)) * factor[m.group(2)[0].lower()]), text)
    text = _KOREAN_SCALE.sub(lambda m: {"만": "万", "억": "亿", "천": "千"}[m.group(1)], text)
    if language in ("es", "pt"):
        text = _MIL.sub(lambda m: _digits(Fraction(m.group(1)) * 1000), text)
    return text


def _bracketed(m: re.Match[str]) -> bool:
    s, a, b = m.string, m.start(), m.end()
    before = s[:a].rstrip()[-1:]
    after = s[b:].lstrip()[:1]
    return (bool(before) and before in _OPENERS) or (bool(after) and after in _CLOSERS)


def read_local_numbers(text: str) -> LocalReading:
    """`text` with its local number forms written the one way the graders read (see the module
    docstring), the language it was read in, and the other reading of any ambiguous form."""
    language = reply_language(text)
    text = _SPACE_GROUPED.sub(lambda m: _GROUP_SPACE.sub("", m.group()), text)
    read, reasons = _read(text.translate(_DIGITS), language, other=False)
    if not reasons:
        return LocalReading(read, language)
    alternative, _ = _read(text.translate(_DIGITS), language, other=True)
    return LocalReading(read, language, alternative, "; ".join(reasons))


def _read(text: str, language: str, *, other: bool) -> tuple[str, list[str]]:
    """The text read by the language (`other`: every ambiguous form read the other way) and
    why each ambiguous form is ambiguous."""
    reasons: list[str] = []
    if language in DOT_GROUPS:

        def grouped(m: re.Match[str]) -> str:
            return m.group(1).replace(".", "") + (m.group(2) or "").replace(",", ".")

        text = _outside_maths(text, _DOT_GROUPED, grouped)
    elif language not in _DOT_DECIMAL:
        found = [m.group() for part in _MATHS.split(text) for m in _ONE_DOT_GROUP.finditer(part)]
        if found:
            who = f"a reply in {language!r}" if language else "a reply whose language is not told"
            reasons.append(f"{found[0]!r} in {who} is a decimal or a thousands grouping")
            if other:
                text = _outside_maths(text, _ONE_DOT_GROUP, lambda m: m.group().replace(".", ""))
    if language in DECIMAL_COMMA:
        ambiguous: list[str] = []

        def comma(m: re.Match[str]) -> str:
            if _bracketed(m):
                return m.group()
            whole, part = m.group(1), m.group(2)
            if len(part) == 3 and 1 <= len(whole.lstrip("-")) <= 3 and whole.lstrip("-")[0] != "0":
                ambiguous.append(m.group())
                if other:
                    return whole + part
            return f"{whole}.{part}"

        text = _outside_maths(text, _COMMA_DECIMAL, comma)
        if ambiguous:
            reasons.append(
                f"{ambiguous[0]!r} in a reply in {language!r} is a decimal comma by the language"
                " or a thousands comma by the English habit"
            )
    return _scales(text, language), reasons
