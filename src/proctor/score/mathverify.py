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


def verify_request(request: dict[str, Any]) -> dict[str, Any]:
    """Runs in the helper process: math-verify's parse and verify of one (target, answer), or
    (kind "extract") its extraction of the answer a whole reply gives."""
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
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
    its last 20,000 characters only, without its programs (`extract.code`: a code comment or
    string literal is not an answer); None for a reply that is only program code or writes a
    program's expression inline (a word such as "open" or a blank "_____" is prose)."""
    prose = prose_of(reply)
    if code_only(reply) is not None or _CODE_EXPRESSION.search(prose):
        return None
    tail = prose[-_FALLBACK_LIMIT:]
    return _INLINE_ACROSS_LINES.sub(" ", _MATHRM_CONSTANT.sub(r"\1", tail))


def mathverify_extraction(
    text: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> tuple[str | None, str]:
    """(the answer Math-Verify's own extraction finds in a whole reply, as the string it
    matched, or None; the helper's status: ok, timeout or crashed)."""
    status, value, _ = call({"kind": "extract", "reply": text}, timeout_s)
    return (value.get("found") if status == "ok" else None), status
