"""Find the program in a code reply.

Rules, first that finds code wins (after the reasoning trace is removed):
fenced_block    the last ```python (or bare ```) block that defines the function asked for, else
                the first such block; a block left open at the end of the reply counts
                (`note` says so, and a reply cut by max_tokens is then truncated)
begin_done      the text between [BEGIN] and [DONE] (the MBPP paper's format)
whole_reply     the whole reply, when it has no fence and reads as Python (it defines a function
                or is an indented function body)
"""

from __future__ import annotations

import re

from proctor.extract.reasoning import strip_reasoning
from proctor.types import Extraction

_FENCE = re.compile(r"```[ \t]*([\w+#-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)
_BEGIN_DONE = re.compile(r"\[BEGIN\]\s*\n?(.*?)(?:\[DONE\]|\Z)", re.DOTALL)
_PYTHON_LIKE = re.compile(r"^\s*(?:def |class |import |from \S+ import |    \S)", re.MULTILINE)

CODE_RULES: dict[str, str] = {
    "fenced_block": "The program is the last ```python block that defines the function asked"
    " for (else the first code block).",
    "begin_done": "The program is the text between [BEGIN] and [DONE].",
    "whole_reply": "The reply has no code block but reads as Python, so the whole reply is the"
    " program.",
    "none": "No code was found in the reply.",
}


def extract_code(text: str, *, entry_point: str = "") -> Extraction:
    reply = strip_reasoning(text)
    blocks = []
    for m in _FENCE.finditer(reply):
        language = m.group(1).lower()
        if language in ("", "python", "py", "python3"):
            unclosed = m.end() == len(reply) and not reply.rstrip().endswith("```")
            blocks.append((m.group(2), unclosed))
    if blocks:
        defining = [
            b
            for b in blocks
            if entry_point and re.search(rf"def\s+{re.escape(entry_point)}\s*\(", b[0])
        ]
        code, unclosed = defining[-1] if defining else blocks[0]
        note = "the code block was never closed" if unclosed else ""
        return Extraction(code, "fenced_block", True, note)
    begin = _BEGIN_DONE.search(reply)
    if begin and begin.group(1).strip():
        unclosed = "[DONE]" not in reply[begin.start() :]
        return Extraction(
            begin.group(1).rstrip(), "begin_done", True, "[DONE] never came" if unclosed else ""
        )
    if reply.strip() and _PYTHON_LIKE.search(reply):
        return Extraction(reply, "whole_reply", False, "")
    return Extraction(None, "none", False, "empty reply" if not reply.strip() else "no code")
