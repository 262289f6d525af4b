"""Did the reply compute with code or a tool instead of by itself?

A violation is: a fenced code block tagged with a programming language; a fenced block of
code-looking lines; a code-looking line anywhere (`def f(`, `import x`, `from x import y`,
`print(`, `>>> `); or a claim to have used, or to be about to use, a calculator, Python, code, an
interpreter or a tool ("I used a calculator", "using Python", "let me run this code",
"用计算器", "使用Python", "代码如下"). A claim in a negated clause ("without using a calculator",
"不使用计算器") is not one, and arithmetic written out ("4821 × 37 = …", "we calculate", "计算")
never is.
"""

from __future__ import annotations

import re

from proctor.extract.normalize import normalize_text

_FENCE = re.compile(r"```[ \t]*([\w+#-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
# fmt: off
_CODE_LANGUAGES = frozenset({
    "python", "py", "python3", "py3", "ipython", "pycon", "javascript", "js", "typescript", "ts",
    "java", "c", "cpp", "c++", "csharp", "cs", "go", "rust", "ruby", "r", "matlab", "julia",
    "bash", "sh", "shell", "zsh", "powershell", "perl", "php", "sql", "lua", "kotlin", "swift",
})
# fmt: on
CODE_LANGUAGES = _CODE_LANGUAGES
"""The info strings of a fence that make it a program (also read by `extract.code`)."""
_CODE_LINE = re.compile(
    r"^[ \t]*(?:def\s+\w+\s*\(.*\)\s*(?:->.*)?:|class\s+\w+\s*[(:]|import\s+[A-Za-z_][\w.]*\s*$"
    r"|import\s+[A-Za-z_][\w.]*\s+as\s+\w+|from\s+[A-Za-z_][\w.]*\s+import\s+\w+|>>>\s)"
    r"|\bprint\s*\(|\bconsole\.log\s*\(",
    re.MULTILINE,
)
_TOOL = (
    r"(?:calculators?|python|code\s+interpreter|interpreter|code|scripts?|programs?|tools?"
    r"|wolfram\w*)"
)
_CALCULATOR = r"(?:calculators?|python|code\s+interpreter|interpreter|wolfram\w*)"
_ARTICLE = r"(?:(?:a|an|the|my|our|some|this|that)\s+)?"
_CLAIMS: tuple[str, ...] = (
    rf"\b(?:i|we)\s+(?:have\s+|had\s+|just\s+)?(?:used|ran|executed)\s+{_ARTICLE}{_TOOL}\b",
    rf"\b(?:i|we)(?:'ll|'m\s+going\s+to|\s+will|\s+am\s+going\s+to|\s+shall)\s+"
    rf"(?:use|run|execute|write)\s+{_ARTICLE}{_TOOL}\b",
    rf"\b(?:using|via|with\s+the\s+help\s+of)\s+{_ARTICLE}{_CALCULATOR}\b",
    rf"\blet(?:'s|\s+me|\s+us)\s+(?:run|execute|use|write)\s+{_ARTICLE}(?:{_TOOL}|snippet)\b",
    r"\b(?:run|ran|running|execute|executed|executing)\s+(?:it\s+|this\s+|that\s+)?"
    r"(?:in|with|through)\s+(?:python|an?\s+interpreter|a\s+calculator)\b",
    r"\b(?:calculator|python|interpreter|code|tool|script)\s+(?:gives|gave|says|said|shows"
    r"|showed|returns|returned|outputs|printed|prints|confirms|confirmed)\b",
    r"(?:用|使用|借助|利用|调用|通过)\s*(?:计算器|计算机|python|代码|程序|编程|解释器|工具)",
    r"代码如下|(?:运行|执行|编写)\s*(?:一下\s*)?(?:代码|程序|脚本)|写(?:一段|个)?\s*(?:代码|程序)",
    r"(?:计算器|程序|代码)\s*(?:显示|给出|算出|输出|返回)",
)
_CLAIM = re.compile("|".join(f"(?:{pattern})" for pattern in _CLAIMS), re.IGNORECASE)
# Words every match of _CODE_LINE (case-sensitive), and of _CLAIM (IGNORECASE), contains: a text
# without one cannot match, so the costly search is skipped.
_CODE_WORDS = ("def", "class", "import", ">>>", "print", "console")
_CLAIM_WORDS = (
    "calculator", "python", "interpreter", "code", "script", "program", "tool", "wolfram",
    "snippet",
)  # fmt: skip
_CLAIM_WORDS_ZH = ("计算器", "计算机", "代码", "程序", "编程", "解释器", "工具", "脚本")
_CLAIM_HINT = re.compile("|".join(_CLAIM_WORDS + _CLAIM_WORDS_ZH), re.IGNORECASE)
_FOLDS_TO_ASCII = re.compile("[ıİſ\u212a]")
"""The only characters IGNORECASE matches to an ASCII letter (i, i, s, k) besides its cases."""


def _contains_any(text: str, words: tuple[str, ...]) -> bool:
    # A loop of `in`, not any(<generator>) nor a regex alternation: several times faster here.
    for word in words:  # noqa: SIM110
        if word in text:
            return True
    return False


def _may_write_code(text: str) -> bool:
    return _contains_any(text, _CODE_WORDS)


def _may_claim(text: str) -> bool:
    if not text.isascii() and _FOLDS_TO_ASCII.search(text):
        return _CLAIM_HINT.search(text) is not None
    # Without those, IGNORECASE is plain case folding of ASCII letters: `lower` and `in` do it.
    return _contains_any(text.lower(), _CLAIM_WORDS) or _contains_any(text, _CLAIM_WORDS_ZH)


_CLAUSE_START = re.compile(r".*[.!?;,\n。！？；，]", re.DOTALL)
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|instead\s+of|rather\s+than|cannot|can't|don't|didn't|won't)\b"
    r"|[不无没未别勿]|禁止",
    re.IGNORECASE,
)


def _clause_before(text: str, start: int) -> str:
    before = text[max(0, start - 40) : start]
    boundary = _CLAUSE_START.match(before)
    return before[boundary.end() :] if boundary else before


def _one_line(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def find_violation(text: str) -> str | None:
    """A one-line reason when the reply used, or claims to use, code or a tool; else None."""
    text = normalize_text(text)
    # Each search below is skipped when the text lacks what every one of its matches contains.
    if "```" in text:
        for fence in _FENCE.finditer(text):
            language = fence.group(1).lower()
            if language in _CODE_LANGUAGES:
                return f"wrote a {language} code block"
            if _CODE_LINE.search(fence.group(2)):
                return "wrote a code block"
    code_line = _CODE_LINE.search(text) if _may_write_code(text) else None
    if code_line:
        line_start = text.rfind("\n", 0, code_line.start()) + 1
        line_end = text.find("\n", code_line.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        return f"wrote code: {_one_line(line)!r}"
    if not _may_claim(text):
        return None
    for claim in _CLAIM.finditer(text):
        if _NEGATION.search(_clause_before(text, claim.start())):
            continue
        return f"claims to use a calculator, code or a tool: {_one_line(claim.group())!r}"
    return None
