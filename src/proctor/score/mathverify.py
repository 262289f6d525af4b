"""Math-Verify, run in a helper process with a deadline: its symbolic verdict on one (answer,
target), and its own extraction of the answer a whole reply gives (the maths graders' fallback).

The helper process is shared by every thread and killed when a check overruns (math-verify's own
timeout uses `signal.alarm`, which only the main thread may use; in the helper it is the main
thread, and our deadline bounds it from outside too).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from proctor.extract.code import code_only, prose_of
from proctor.extract.maths import without_rejected
from proctor.sandbox.worker import BoundedWorker

DEFAULT_TIMEOUT_S = 10.0

_CODE_EXPRESSION = re.compile(
    r"__[A-Za-z]\w*__|\blambda\b[^:\n]{0,40}:|\b(?:globals|getattr|open|eval|exec)\(|\w\(\s*['\"]"
    r"|\.[A-Za-z_]\w*\("
)
"""A program's expression written inline (a dunder, a lambda, open( or getattr(, a call with a
string, a method call): its calls and strings are not an answer. The words alone ("open the
box", "import") and a blank "_____" are prose."""

_INLINE_ACROSS_LINES = re.compile(
    r"(?<![$\\])\$(?!\$)[^$\n]*\n[^$]*(?<![$\\])\$(?!\$)"
    r"|\\\((?:(?!\\\))[^\n])*\n(?:(?!\\\)).)*\\\)",
    re.DOTALL,
)

_CJK_NEXT_TO_MATHS = re.compile(r"(?<=[\u3400-\u9fff])(?=[-\d$\\])|(?<=[\d$])(?=[\u3400-\u9fff])")
"""Where Chinese runs into a number or math ("比例为13/28"): Math-Verify finds a number only after
a space, so a space goes there (the fallback reads every language alike)."""

_FALLBACK_LIMIT = 20_000
"""Math-Verify's fallback reads the last this many characters of a reply (its answer is at the
end; its regexes on a whole runaway reply would only time out)."""

_MATHRM_CONSTANT = re.compile(r"\\mathrm\s*\{\s*([ei])\s*\}")

_MATH_DELIMITED = re.compile(r"\$|\\\(|\\\[|\\boxed|\\fbox")


_worker_lock = threading.Lock()
_worker: BoundedWorker | None = None


def _symbolic_worker() -> BoundedWorker:
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = BoundedWorker(
                "proctor.score.mathverify:verify_request", size=max(1, os.cpu_count() or 1)
            )
        return _worker


def _delimited(latex: str) -> str:
    return latex if _MATH_DELIMITED.search(latex) else f"${latex}$"


EXACT_DIGITS = 40
"""Two exact numeric expressions (no decimal in them) are equal when they agree to this many
significant digits, relative to their size: 1/2006! is not 1/2004!, 2^-98 is not 2^-99, and
√2 + 10^-20 is not √2, while equal forms (1/√2 and √2/2, 2006!/2004! and 2006·2005) agree to
every digit."""


def _relative_gap(a: Any, b: Any, digits: int) -> tuple[Any, Any]:
    """(|a − b|, max(|a|, |b|)), both evaluated to `digits` + 20 significant digits."""
    n = digits + 20
    return abs((a - b).evalf(n)), max(abs(a.evalf(n)), abs(b.evalf(n)))


def _exact_numeric_eq(loose: Any) -> Any:
    """Math-Verify's numeric equality made exact: its own check (kept for matrices, atomic
    numbers, which it compares exactly, and decimals) counts as equal any two expressions whose
    difference evaluates under an absolute 10^-15, and rounds decimals to 6 places, so tiny
    exact answers all "equal" each other. Here an exact expression must agree with the other to
    `EXACT_DIGITS` significant digits relative to its magnitude, one with free symbols must
    differ by exactly 0, and a decimal must agree to 5 significant digits too."""
    from math_verify import grader  # sympy's classes as Math-Verify imports them

    Float, Number, matrices = grader.Float, grader.Number, (grader.MatrixBase, grader.MatrixExpr)

    def atomic(x: Any) -> bool:
        return bool(isinstance(x, Number) or (x.is_Function and x.args and x.args[0].is_Number))

    def numeric_eq(a: Any, b: Any, float_rounding: int, numeric_precision: int) -> bool:
        if isinstance(a, matrices) or isinstance(b, matrices):
            return bool(loose(a, b, float_rounding, numeric_precision))  # element by element
        try:
            if a.has(Float) or b.has(Float):
                if not loose(a, b, float_rounding, numeric_precision):
                    return False
                gap, size = _relative_gap(a, b, float_rounding)
                return bool(size >= 1 or gap <= size * 10 ** (1 - float_rounding))
            if atomic(a) or atomic(b):
                return bool(loose(a, b, float_rounding, numeric_precision))  # exact there
            if a.free_symbols or b.free_symbols:
                return bool((a - b).evalf(n=numeric_precision) == 0)
            gap, size = _relative_gap(a, b, EXACT_DIGITS)
            return bool(gap == 0 or gap <= size * 10**-EXACT_DIGITS)
        except Exception:  # as math-verify's own check: any error is "not equal"
            return False

    return numeric_eq


def _install_exact_comparison() -> None:
    """Math-Verify's comparisons (of values, and of the elements of tuples, sets, intervals and
    relations, which call the same function) use `_exact_numeric_eq` in this process."""
    from math_verify import grader

    if not getattr(grader, "_proctor_exact", False):
        grader.sympy_numeric_eq = _exact_numeric_eq(grader.sympy_numeric_eq)
        grader._proctor_exact = True


def verify_request(request: dict[str, Any]) -> dict[str, Any]:
    """Runs in the helper process: math-verify's parse and verify of one (target, answer), or
    (kind "extract") its extraction of the answer a whole reply gives. Its numeric equality is
    made exact first (`_exact_numeric_eq`)."""
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    _install_exact_comparison()
    seconds = max(1, int(request.get("seconds", 5)))
    if request.get("kind") == "extract":
        found = parse(request["reply"], parsing_timeout=seconds)
        return {"found": str(found[-1]) if found else None}
    gold = parse(_delimited(request["target"]), parsing_timeout=seconds)
    if not gold:
        return {"verdict": "error", "detail": "math-verify could not read the target"}
    pred = parse(_delimited(request["answer"]), parsing_timeout=seconds)
    if not pred:
        return {"verdict": "different", "detail": "the answer could not be read as maths"}
    same = verify(gold, pred, timeout_seconds=seconds)
    return {"verdict": "equal" if same else "different", "normalized": str(pred[0])}


def call(request: dict[str, Any], timeout_s: float) -> tuple[str, Any, str]:
    """(status: ok, timeout or crashed; the helper's reply; a detail) of one request."""
    request = {**request, "seconds": max(1, int(timeout_s) - 1)}
    reply = _symbolic_worker().call(request, timeout_s)
    return reply.status, reply.value, reply.detail


def fallback_text(reply: str) -> str | None:
    """The reply as Math-Verify's extraction may read it: \\mathrm{e} and \\mathrm{i} written as
    the constants they are (its normaliser would drop them as units), and an inline $…$ or
    \\(…\\) that runs across a line break left out (malformed math, as its own LaTeX rule says),
    its last 20,000 characters only, without the values it rejects ("et non 14/3") and its
    programs (`extract.code`: a code comment or string literal is not an answer); None for a
    reply that is only program code or writes a program's expression inline (a word such as
    "open" or a blank "_____" is prose)."""
    prose = prose_of(reply)
    if code_only(reply) is not None or _CODE_EXPRESSION.search(prose):
        return None
    tail = _CJK_NEXT_TO_MATHS.sub(" ", without_rejected(prose[-_FALLBACK_LIMIT:]))
    return _INLINE_ACROSS_LINES.sub(" ", _MATHRM_CONSTANT.sub(r"\1", tail))


def mathverify_extraction(
    text: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> tuple[str | None, str]:
    """(the answer Math-Verify's own extraction finds in a whole reply, as the string it
    matched, or None; the helper's status: ok, timeout or crashed)."""
    status, value, _ = call({"kind": "extract", "reply": text}, timeout_s)
    return (value.get("found") if status == "ok" else None), status
