"""lm-evaluation-harness's GSM8K filters, reproduced so our numbers can be set beside theirs on the
same raw replies (compatibility, not our default: `extract.maths` is).

- strict-match (gsm8k_cot, CoT prompts): the FIRST match of `The answer is (-?[0-9.,]+).` — the
  final "." is a regex wildcard, so one more character of any kind must follow the number;
- strict-match (plain gsm8k): the first match of `#### (-?[0-9.,]+)`;
- flexible-extract: the LAST match of `(-?[$0-9.,]{2,})|(-?[0-9]+)`, anywhere in the reply;
- no match: the literal "[invalid]";
- the metric, exact_match: both sides lower-cased after removing ",", "$", everything up to the
  last "#### " and one final "." — then compared as strings ("18.00" is not "18").

The reply is first cut at the stop sequences lm-eval generates with (`until`), since lm-eval never
sees text past them. Reasoning traces are NOT removed: lm-eval does not remove them either.
Known differences with our extraction (tests/extract/cases/benchmarks/lmeval_cases.json): \\boxed{}
answers are invisible to strict-match; strict-match takes the first "The answer is", we take
the last; flexible-extract takes any trailing number (a year, a step count) as the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INVALID = "[invalid]"

STRICT_COT = re.compile(r"The answer is (\-?[0-9\.\,]+).")
STRICT_HASH = re.compile(r"#### (\-?[0-9\.\,]+)")
FLEXIBLE = re.compile(r"(-?[$0-9.,]{2,})|(-?[0-9]+)")
UNTIL_COT = ("Q:", "</s>", "<|im_end|>")
UNTIL_PLAIN = ("Question:", "</s>", "<|im_end|>")
_IGNORE = (re.compile(","), re.compile(r"\$"), re.compile(r"(?s).*#### "), re.compile(r"\.$"))


@dataclass(frozen=True)
class LmEvalFilters:
    """What each lm-eval filter takes from one reply."""

    strict_match: str
    flexible_extract: str


def cut_at_stops(text: str, until: tuple[str, ...]) -> str:
    """The reply up to the first stop sequence, as lm-eval's generation would have ended it."""
    cut = min((i for i in (text.find(s) for s in until) if i >= 0), default=len(text))
    return text[:cut]


def regex_filter(text: str, pattern: re.Pattern[str], select: int) -> str:
    """lm-eval's regex filter: all matches, the `select`-th; a match with groups gives its first
    non-empty group; stripped; "[invalid]" when nothing matches."""
    matches = pattern.findall(text)
    if not matches:
        return INVALID
    chosen = matches[select]
    if isinstance(chosen, tuple):
        chosen = next((g for g in chosen if g), "")
    return str(chosen).strip()


def lmeval_filters(text: str, *, cot: bool = True) -> LmEvalFilters:
    """strict-match and flexible-extract of one raw reply, as lm-eval's gsm8k_cot (`cot`) or plain
    gsm8k task would filter it."""
    reply = cut_at_stops(text, UNTIL_COT if cot else UNTIL_PLAIN)
    strict = regex_filter(reply, STRICT_COT if cot else STRICT_HASH, 0)
    return LmEvalFilters(strict, regex_filter(reply, FLEXIBLE, -1))


def _ignore(text: str) -> str:
    for pattern in _IGNORE:
        text = pattern.sub("", text)
    return text.lower()


def lmeval_exact_match(prediction: str, reference: str) -> bool:
    """lm-eval's exact_match for GSM8K (regexes_to_ignore, ignore_case, no punctuation removal)."""
    return _ignore(prediction) == _ignore(reference)
