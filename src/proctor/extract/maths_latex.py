"""LaTeX as models really mistype it: read as the model meant it, or named as malformed so that
the grader leaves it unscored; never read with a part silently dropped (a LaTeX parser drops what
it cannot read: "4\\sqrt(2)" became 4). One sentence per rule:

- `\\sqrt(X)`, `\\sqrt[n](X)` and `\\frac(A)(B)` with balanced parentheses mean `\\sqrt{X}`,
  `\\sqrt[n]{X}` and `\\frac{A}{B}`, and are read so; so is a command run into the letters
  after it (`\\sqrtx` is `\\sqrt x`, `\\quadx` is `\\quad x`);
- braces that do not balance, or parentheses and brackets that do not (taken together, so that
  a half-open interval "[0, 1)" balances; `\\left( 1, 2` does not), are malformed;
- a command with an empty argument (`\\sqrt{}`, `\\frac{}{4}`) or none (`\\sqrt` at the end), an
  operator with nothing after it (`5\\cdot`, `3+`), and a command LaTeX does not have (`\\sqr`,
  `\\srqt`) are malformed.
"""

from __future__ import annotations

import re

# fmt: off
_KNOWN = frozenset({
    "sqrt", "frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom", "choose", "pi", "cdot",
    "times", "div", "pm", "mp", "ast", "star", "circ", "le", "leq", "leqslant", "ge", "geq",
    "geqslant", "ne", "neq", "lt", "gt", "approx", "sim", "simeq", "cong", "equiv", "propto",
    "infty", "in", "notin", "ni", "subset", "subseteq", "supset", "supseteq", "cup", "cap",
    "setminus", "emptyset", "varnothing", "mathbb", "mathbf", "mathrm", "mathit", "mathcal",
    "mathsf", "mathfrak", "boldsymbol", "text", "textbf", "textit", "textrm", "textnormal",
    "texttt", "mbox", "operatorname", "sin", "cos", "tan", "cot", "sec", "csc", "arcsin",
    "arccos", "arctan", "arccot", "sinh", "cosh", "tanh", "coth", "log", "ln", "lg", "exp", "lim",
    "sum", "prod", "int", "iint", "oint", "max", "min", "sup", "inf", "gcd", "lcm", "det", "deg",
    "dim", "ker", "arg", "Re", "Im", "mod", "bmod", "pmod", "alpha", "beta", "gamma", "delta",
    "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota", "kappa", "lambda", "mu",
    "nu", "xi", "omicron", "rho", "varrho", "sigma", "varsigma", "tau", "upsilon", "phi", "varphi",
    "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon",
    "Phi", "Psi", "Omega", "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl",
    "Bigr", "middle", "ldots", "dots", "cdots", "vdots", "ddots", "dotsc", "dotsb", "dotsm",
    "dotsi", "dotso", "mathellipsis", "begin", "end", "overline", "underline", "bar", "hat",
    "widehat", "tilde", "widetilde", "vec", "dot", "ddot", "overrightarrow", "angle",
    "measuredangle", "triangle", "square", "perp", "parallel", "mid", "nmid", "to", "rightarrow",
    "leftarrow", "Rightarrow", "Leftarrow", "leftrightarrow", "Leftrightarrow", "implies", "iff",
    "mapsto", "land", "lor", "neg", "lnot", "wedge", "vee", "forall", "exists", "partial", "nabla",
    "prime", "ell", "hbar", "imath", "jmath", "degree", "quad", "qquad", "displaystyle",
    "textstyle", "scriptstyle", "boxed", "fbox", "lfloor", "rfloor", "lceil", "rceil", "floor",
    "ceil", "vert", "Vert", "lvert", "rvert", "lVert", "rVert", "langle", "rangle", "phantom",
    "hphantom", "vphantom", "not", "cdotp", "colon", "dagger", "checkmark", "blacksquare",
    "overset", "underset", "stackrel", "limits", "nolimits", "mathop", "hline", "cline", "sqcup",
    "sqcap", "oplus", "otimes", "odot", "bullet", "diamond", "because", "therefore", "euro",
    "dollar", "pounds", "textdollar", "textdegree", "ominus", "uplus", "bigcup", "bigcap",
    "coprod", "aleph", "Box", "lbrace", "rbrace", "lbrack", "rbrack", "backslash", "over",
    "atop", "mathring", "acute", "grave", "breve", "check", "ss", "aa", "o", "i", "j",
    "l", "L", "S", "P", "c", "cr", "newline", "nonumber", "tag", "label", "rm", "bf", "it", "cal",
    "hspace", "vspace", "kern", "mkern", "mskip", "enspace", "thinspace", "negthinspace", "space",
    "nobreakspace", "gets", "longrightarrow", "Longrightarrow", "uparrow", "downarrow",
    "nearrow", "searrow", "leqq", "geqq", "ll", "gg", "lessgtr", "nless", "ngtr", "nleq", "ngeq",
    "subsetneq", "supsetneq", "varpi", "varkappa", "digamma", "Bbb", "frak", "textup",
    "textsf", "mathtt", "hbox", "pmatrix", "bmatrix", "vmatrix", "Vmatrix", "matrix", "cases",
    "array", "smallmatrix", "aligned", "align", "split", "gather", "eqref", "ref",
})
# fmt: on
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_EMPTY_ARGUMENT = re.compile(
    r"\\(?:sqrt|[dtc]?frac|binom|dbinom|tbinom|text|mathrm|mathbf|operatorname)\s*"
    r"(?:\[[^\]]*\]\s*)?\{\s*\}|\\[dtc]?frac\s*\{[^{}]*\}\s*\{\s*\}|\\(?:sqrt|[dtc]?frac)\s*$"
)
# An operator with nothing after it; "**" and "__" closing Markdown emphasis ("**20**") are not.
_DANGLING = re.compile(r"(?:(?<![*_])[-+*/^_=]|\\(?:cdot|times|div|pm|mp|frac|sqrt))\s*$")
_PAREN_ROOT = re.compile(r"\\sqrt\s*(\[[^\[\]]*\])?\s*\(")
_PAREN_FRAC = re.compile(r"\\([dtc]?frac)\s*\(")


def _closing(text: str, start: int) -> int:
    """The index of the ")" that closes the "(" at `start`, or -1."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def _repair_roots(s: str) -> str:
    at = 0
    while (m := _PAREN_ROOT.search(s, at)) is not None:
        close = _closing(s, m.end() - 1)
        if close < 0:
            return s
        index = m.group(1) or ""
        inner = s[m.end() : close]
        s = f"{s[: m.start()]}\\sqrt{index}{{{inner}}}{s[close + 1 :]}"
        at = m.start() + 1
    return s


def _repair_fractions(s: str) -> str:
    at = 0
    while (m := _PAREN_FRAC.search(s, at)) is not None:
        first_close = _closing(s, m.end() - 1)
        if first_close < 0 or first_close + 1 >= len(s) or s[first_close + 1] != "(":
            return s
        second_close = _closing(s, first_close + 1)
        if second_close < 0:
            return s
        top, bottom = s[m.end() : first_close], s[first_close + 2 : second_close]
        s = f"{s[: m.start()]}\\{m.group(1)}{{{top}}}{{{bottom}}}{s[second_close + 1 :]}"
        at = m.start() + 1
    return s


def _split_run_on(m: re.Match[str]) -> str:
    """`\\sqrtx` → `\\sqrt x`, `\\quadx` → `\\quad x`: a command LaTeX lacks that is one it has
    run into the letters after it (the longest such, of two letters or more)."""
    name = m.group(1)
    if name in _KNOWN:
        return m.group()
    for cut in range(len(name) - 1, 1, -1):
        if name[:cut] in _KNOWN:
            return f"\\{name[:cut]} {name[cut:]}"
    return m.group()


def as_meant(expression: str) -> str:
    """`expression` with `\\sqrt(X)`, `\\sqrt[n](X)`, `\\frac(A)(B)` and a command run into the
    letters after it (`\\sqrtx`) written as meant."""
    if "\\" not in expression:
        return expression
    expression = _COMMAND.sub(_split_run_on, expression)
    return _repair_fractions(_repair_roots(expression))


def _unescaped(expression: str) -> str:
    """The expression without escaped delimiters (\\{, \\}, \\(, \\), \\[, \\]) and \\left. or
    \\right. (which open or close nothing)."""
    return re.sub(r"\\[{}()\[\]]|\\(?:left|right)\s*\.", "", expression)


def _balanced(expression: str) -> bool:
    braces = groups = 0
    for ch in _unescaped(expression):
        if ch == "{":
            braces += 1
        elif ch == "}":
            braces -= 1
        elif ch in "([":
            groups += 1
        elif ch in ")]":
            groups -= 1
        if braces < 0 or groups < 0:
            return False
    return braces == 0 and groups == 0


def malformed(expression: str) -> str:
    """Why `expression` (already read `as_meant`) is LaTeX that cannot be read as meant, or "":
    unbalanced braces or parentheses, an empty or missing argument, an operator with nothing
    after it, a command LaTeX does not have."""
    if not _balanced(expression):
        return f"{expression!r} is malformed LaTeX: its braces or parentheses do not balance"
    if m := _EMPTY_ARGUMENT.search(expression):
        return f"{expression!r} is malformed LaTeX: {m.group().strip()!r} has no argument"
    if _DANGLING.search(expression):
        return f"{expression!r} is malformed LaTeX: it ends on an operator with nothing after it"
    unknown = [c for c in _COMMAND.findall(expression) if c not in _KNOWN]
    if unknown:
        return f"{expression!r} is malformed LaTeX: \\{unknown[0]} is no LaTeX command"
    return ""
