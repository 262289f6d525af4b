"""Maths answers: is the extracted answer the target? Exactly for numbers, symbolically for the
rest, and never unbounded in time.

Order, first decisive step wins:
1. same_text     equal after dropping spacing, $…$, \\left/\\right, \\dfrac→\\frac, degree and
                 percent signs, trailing units ("5\\text{ cm}", "18 dollars"), and all but the
                 last side of an equation when the target is none ("x = 4", "3 + 4 = 7").
2. exact_number  both read as plain numbers (integers, decimals, fractions, \\frac{a}{b}) and
                 compared as exact fractions: 99999999999 is not 100000000000.
3. symbolic      math-verify (sympy) decides, in a helper process with a deadline: radicals,
                 intervals, sets, expressions. A check that runs out of time is `unscored`,
                 never wrong.

The helper process is shared by every thread and killed when a check overruns (math-verify's own
timeout uses `signal.alarm`, which only the main thread may use; in the helper it is the main
thread, and our deadline bounds it from outside too).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from proctor.extract.maths import MATHS_RULES, extract_maths
from proctor.extract.normalize import clean_text, find_numbers, parse_number
from proctor.sandbox.worker import BoundedWorker
from proctor.score.failed import CALL_FAILED_RULE
from proctor.types import FinishReason, Sample, Score

Verdict = Literal["equal", "different", "timeout", "error"]

EQUIVALENCE_RULES: dict[str, str] = {
    "same_text": "The answer is the target once spacing, $…$, units, degree and percent signs are"
    " dropped.",
    "exact_number": "The answer and the target are numbers and are equal as exact fractions.",
    "symbolic": "math-verify (sympy) finds the answer equal to the target: same value, set,"
    " interval or expression.",
}

OUTCOME_RULES: dict[str, str] = {
    "call_failed": CALL_FAILED_RULE,
    "truncated": "The reply hit max_tokens before it gave a marked final answer.",
    "no_answer": "No answer could be found in the reply.",
    "maths_timeout": "The symbolic check ran out of time, so the item is not scored (never wrong).",
    "checker_error": "The symbolic checker failed or could not read the target, so the item is"
    " not scored.",
}

RULES: dict[str, str] = {**OUTCOME_RULES, **MATHS_RULES, **EQUIVALENCE_RULES}

DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Equivalence:
    verdict: Verdict
    rule: str
    normalized: str | None = None
    detail: str = ""


_UNIT_WORDS = re.compile(r"^(.*?\d)\s*(?:[a-zA-Z]+\.?\s*)+$")
_TEXT_UNIT = re.compile(r"^(.+?)\\(?:text|mbox|mathrm)\{\s*[a-zA-Z][a-zA-Z .]*\}$")
_OPERATOR = re.compile(r"[\\^*×+=]|\d\s*[-/]\s*\d")


def canonical_text(text: str) -> str:
    """A maths answer in one spelling, for a plain string comparison."""
    s = text.strip().strip("$").strip()
    for wrapper in (r"^\\\((.*)\\\)$", r"^\\\[(.*)\\\]$"):
        s = re.sub(wrapper, r"\1", s, flags=re.DOTALL)
    boxed = re.fullmatch(r"\\boxed\s*\{(.*)\}", s, flags=re.DOTALL)
    s = boxed.group(1) if boxed else s
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = re.sub(r"\\left|\\right|\\!|\\,|\\;|\\:|\\ ", "", s)
    s = re.sub(r"\^\s*\{?\\circ\}?|°|\\%|%", "", s)
    s = re.sub(
        r"\\(?:text|mbox|mathrm)\{\s*(?:degrees?|units?|cm|m|inches|feet|dollars?)\s*\}", "", s
    )
    unit = _TEXT_UNIT.match(s.strip())
    s = unit.group(1) if unit else s
    words = _UNIT_WORDS.match(s.strip())
    s = words.group(1) if words else s
    s = re.sub(r"\s+", "", s).rstrip(".")
    return s


def _strip_assignment(answer: str, target: str) -> str:
    """ "x = 4" is 4 and "16 + 48 + 32 = 96" is 96 when the target is no equation."""
    if "=" in target or "=" not in answer:
        return answer
    return answer.rsplit("=", 1)[1].strip() or answer


def exact_number(text: str) -> Fraction | None:
    token = parse_number(text)
    return token.value if token is not None else None


def _spell(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


_worker_lock = threading.Lock()
_worker: BoundedWorker | None = None


def _symbolic_worker() -> BoundedWorker:
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = BoundedWorker(
                "proctor.score.maths:verify_request", size=max(1, os.cpu_count() or 1)
            )
        return _worker


def verify_request(request: dict[str, Any]) -> dict[str, Any]:
    """Runs in the helper process: math-verify's parse and verify of one (target, answer)."""
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    seconds = max(1, int(request.get("seconds", 5)))
    gold = parse(f"${request['target']}$", parsing_timeout=seconds)
    if not gold:
        return {"verdict": "error", "detail": "math-verify could not read the target"}
    pred = parse(f"${request['answer']}$", parsing_timeout=seconds)
    if not pred:
        return {"verdict": "different", "detail": "the answer could not be read as maths"}
    same = verify(gold, pred, timeout_seconds=seconds)
    return {"verdict": "equal" if same else "different", "normalized": str(pred[0])}


def equivalent(
    answer: str, target: str, *, numeric: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S
) -> Equivalence:
    """Whether `answer` is `target` (see the module docstring for the order of the checks).

    With `numeric` (GSM8K, AIME: the target is a number), an answer that is not one number on
    its own is read as the first number it contains ("18 dollars" → 18)."""
    a = canonical_text(_strip_assignment(answer, target))
    t = canonical_text(target)
    if a and a == t:
        return Equivalence("equal", "same_text", a)
    a_num, t_num = exact_number(a), exact_number(t)
    if a_num is None and numeric and not _OPERATOR.search(a):
        numbers = find_numbers(clean_text(answer))
        a_num = numbers[0][2].value if numbers else None
    if a_num is not None and t_num is not None:
        verdict: Verdict = "equal" if a_num == t_num else "different"
        return Equivalence(verdict, "exact_number", _spell(a_num))
    reply = _symbolic_worker().call(
        {"answer": a, "target": t, "seconds": max(1, int(timeout_s) - 1)}, timeout_s
    )
    if reply.status == "timeout":
        return Equivalence("timeout", "maths_timeout", None, reply.detail)
    if reply.status == "crashed":
        return Equivalence("error", "checker_error", None, reply.detail)
    value = reply.value
    return Equivalence(
        value["verdict"], "symbolic", value.get("normalized"), value.get("detail", "")
    )


def grade_maths(
    text: str,
    finish_reason: FinishReason,
    sample: Sample,
    *,
    asked: tuple[str, ...],
    numeric: bool,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Score:
    """Grade one reply to one maths sample; every rule part is a key of `RULES`."""
    found = extract_maths(text, asked=asked, numeric=numeric)
    if finish_reason == "length" and found.rule in ("none", "last_number"):
        return Score("truncated", "truncated", RULES["truncated"], extracted=found.value)
    if found.value is None:
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({found.note})")
    eq = equivalent(found.value, sample.target, numeric=numeric, timeout_s=timeout_s)
    given = repr(found.value) + (
        f" (read as {eq.normalized})" if eq.normalized and eq.normalized != found.value else ""
    )
    via = f" Found by {found.rule}" + (f": {found.note}." if found.note else ".")
    if eq.verdict in ("timeout", "error"):
        return Score(
            "unscored",
            eq.rule,
            f"{RULES[eq.rule]} {eq.detail}. Answer {given}, target {sample.target!r}.",
            extracted=found.value,
            format_ok=found.format_ok,
        )
    correct = eq.verdict == "equal"
    said = f"{given} {'equals' if correct else 'is not'} the target {sample.target!r}."
    if eq.detail:
        said += f" ({eq.detail})"
    return Score(
        "correct" if correct else "wrong",
        f"{found.rule}+{eq.rule}",
        said + via,
        extracted=found.value,
        normalized=eq.normalized,
        format_ok=found.format_ok,
    )
