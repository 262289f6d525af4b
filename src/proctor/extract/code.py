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
from proctor.extract.violation import CODE_LANGUAGES
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


# A fence of backticks or tildes, its info string, and its body (to the closing fence or the end).
_ANY_FENCE = re.compile(
    r"(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:\n[ \t]*\1[ \t]*(?=\n|$)|\Z)", re.DOTALL
)
_STRONG_CODE_LINE = re.compile(
    r"^[ \t]*(?:def\s+\w+\s*\(|class\s+\w+\s*[(:]|import\s+[A-Za-z_][\w.]*(?:\s+as\s+\w+)?\s*$"
    r"|from\s+[A-Za-z_][\w.]*\s+import\s+\w|>>>\s|print\s*\(|console\.log\s*\(|return\b"
    r"|(?:const|let|var)\s+\w+\s*=)",
    re.MULTILINE,
)
"""A line only a program writes: a definition, an import, a print or return statement."""
_CODE_ISH_LINE = re.compile(
    r"[ \t]*(?:#.*|//.*|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*[-+*/]?=\s*[^=\n].*|\w[\w.]*\(.*\)\s*;?"
    r"|(?:for|while|if|elif|else|try|except|with)\b.*:\s*|[ \t]+\S.*|[)\]}]\s*;?)",
)
"""A line a program may write besides those: a comment, an assignment, a call, a block header,
an indented line."""
_OUTPUT_LANGUAGES = frozenset({"output", "text", "txt", "console", "stdout", "result"})
_PROSE = re.compile(r"[^\W_]", re.UNICODE)


def _is_program(language: str, body: str) -> bool:
    if language.lower() in CODE_LANGUAGES:
        return True
    if language.lower() in _OUTPUT_LANGUAGES:
        return False
    return _STRONG_CODE_LINE.search(body) is not None


def prose_of(text: str) -> str:
    """`text` without its programs: fenced blocks of code (any fence, any programming language,
    or a bare fence holding code lines) and unfenced lines only a program writes, each left as a
    line break. A program's comments and literals are not prose, so no answer rule or fallback
    reads them; a fence around prose ("```\\nFinal answer: 18\\n```") or a program's printed
    output is kept."""
    if "```" not in text and "~~~" not in text and not _STRONG_CODE_LINE.search(text):
        return text

    def blank(m: re.Match[str]) -> str:
        return "\n" if _is_program(m.group(2), m.group(3)) else m.group(0)

    return _unfenced_code(_ANY_FENCE.sub(blank, text))


def _unfenced_code(text: str) -> str:
    """Lines only a program writes, with the indented lines of the block each one opens, blanked."""
    lines = text.split("\n")
    inside = False
    for i, line in enumerate(lines):
        if _STRONG_CODE_LINE.match(line):
            lines[i], inside = "", line.rstrip().endswith(":")
        elif inside and (line.startswith((" ", "\t")) or not line.strip()):
            lines[i] = ""
        else:
            inside = False
    return "\n".join(lines)


def code_only(text: str) -> str | None:
    """Why the reply is only a program (one line of words), or None when it says anything in
    prose: no fenced program and no prose, or unfenced lines that are all code with at least one
    that only a program writes."""
    reply = strip_reasoning(text)
    if not _PROSE.search(reply):
        return None
    if not _PROSE.search(prose_of(reply)):
        return "the reply is only program code, and code is never an answer"
    lines = [line for line in reply.split("\n") if line.strip()]
    if _STRONG_CODE_LINE.search(reply) and all(
        _STRONG_CODE_LINE.match(line) or _CODE_ISH_LINE.fullmatch(line) for line in lines
    ):
        return "the reply is only program code (unfenced), and code is never an answer"
    return None
