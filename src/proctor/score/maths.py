"""Maths answers: is the extracted answer the target? Exactly for numbers, symbolically for the
rest, never unbounded in time, and never "correct" for a form that has two readings.

Both the answer and the target are read the same way (`extract.maths_form`): wrappers, a unit,
a percent or degree sign and a scale word are taken apart from the expression. Then, first
decisive step wins:

1. ambiguous      a form with two readings of different value (2\\frac{3}{2}; 1,222 against
                  1.222) is `unscored`, with the reason: never correct
   malformed      LaTeX that cannot be read as meant (`4\\sqrt2)`, `5\\cdot`, `\\sqr{2}`) is
                  `unscored`; `\\sqrt(2)` and `\\frac(1)(2)` are read as meant
                  (`extract.maths_latex`)
   solution_set   solutions listed as assignments ("x = 3 or x = 5", "p=5,q=2;p=7,q=2") are a
                  set, compared with a plain list by value or with the target's groups in any
                  order (before everything below)
   structure      a sequence with an ellipsis (1, 3, 5, \\ldots, 2n-1) or a ratio chain
                  (1:4:9:\\ldots) on either side is compared term by term (each term by these
                  same rules), never read as one number; the same ratio in other terms
                  (2:8:18 against 1:4:9) is `unscored`
2. unit           a unit of another kind or size than the target's, or than the one the
                  question counts in, makes the answer different (5 km is not 5 m); units
                  are the one unit table's (`score.maths_units`)
3. same_text      the same expression, percent and scale once spacing is dropped ("32, 349"
                  stays a list and "2 1/2" a mixed number)
4. exact_number   both are plain numbers (an answer in words: the one number it states),
                  compared as exact fractions (99999999999 is not 100000000000, 0.333 is not
                  1/3); a scale word multiplies (`scale`), a percent follows the stated
                  conventions, and a float artefact of the target counts (`float_artefact`);
                  an answer in number words or Chinese numerals (一百二十, 十二万) is read by
                  the shared number reader when it is one quantity and nothing else
                  (`number_words`)
5. scale          a scale word on anything but a plain number makes it different
6. decimal_comma  1000,99 against a decimal target is read with a decimal comma
7. symbolic       math-verify (sympy) decides: radicals, intervals, sets, matrices,
                  expressions; decimals are handed to it as exact fractions, so a rounded
                  decimal never equals an exact value, and its numeric equality is made exact
                  (`score.mathverify.EXACT_DIGITS`: 1/2006! is not 1/2004!, 2^-98 is not 2^-99,
                  in a tuple, set or interval too)

A reply that marks no answer is read by Math-Verify's own extraction (rule `mathverify`, a
fallback that is flagged) and then compared the same way; numeric tasks (GSM8K, AIME) have
their own last-number fallback instead. A check that runs out of time is
`unscored`, never wrong.

Math-Verify runs in a helper process with a deadline (`score.mathverify`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from proctor.extract.code import code_only
from proctor.extract.local_numbers import read_local_numbers
from proctor.extract.maths import (
    MATHS_RULES,
    find_maths_answer,
    in_words,
    target_boxed,
    visible_reply,
)
from proctor.extract.maths_form import (
    AnswerForm,
    Structure,
    canonical,
    read_form,
    solution_groups,
    structure,
)
from proctor.extract.normalize import parse_number
from proctor.extract.numerals import CN_SCALE_CHARS
from proctor.extract.scales import AMBIGUOUS_SCALES
from proctor.score.failed import CALL_FAILED_RULE
from proctor.score.maths_numbers import (
    Equivalence,
    ambiguous_thousands,
    compare_numbers,
    decimal_comma_verdict,
    number_of,
    number_words,
    stated_number,
    unit_conflict_verdict,
    value_of,
)
from proctor.score.mathverify import (
    DEFAULT_TIMEOUT_S,
    call,
    fallback_text,
    mathverify_extraction,
)
from proctor.types import FinishReason, Sample, Score

EQUIVALENCE_RULES: dict[str, str] = {
    "ambiguous": "The answer (or the target) can be read two ways that differ in value, so it is"
    " not scored: never correct.",
    "scale": "A scale word (thousand, million, dozen, 万, 亿) multiplies the number it follows"
    " (70 thousand is 70000, 5 million is not 5), unless the question counts in it (7 dozen"
    " answers 'how many dozens').",
    "unit": "The answer's unit is not the target's, or not the one the question counts in.",
    "same_text": "The answer is the target once spacing, $…$, units, degree and percent signs are"
    " dropped.",
    "exact_number": "The answer and the target are numbers and are equal as exact fractions.",
    "float_artefact": "The answer is a float artefact of the target: more than 12 significant"
    " digits that round to it at 12.",
    "number_words": "An answer in number words or Chinese numerals (一百二十, 十二万, twenty-five)"
    " that is one quantity and nothing else is read by the shared number reader and compared"
    " exactly; a range, bound, hedge or several values is not the number.",
    "decimal_comma": "A comma between digits that is not a thousands separator (1000,99) is a"
    " decimal comma when the other side is a decimal number.",
    "malformed": "The answer is LaTeX written wrongly in a way that cannot be"
    " read as meant (unbalanced, an empty argument, a command LaTeX lacks), so it is not scored:"
    " never read with a part dropped (\\sqrt(2) and \\frac(1)(2) are read as meant).",
    "solution_set": "Solutions listed as assignments (x = 3 or x = 5; p=5,q=2;p=7,q=2) are a set"
    " of solutions, compared with the target's group by group in any order (never a hedge).",
    "structure": "A sequence (terms and an ellipsis: 1, 3, 5, \\ldots, 2n-1) or a ratio chain"
    " (1:4:9) is compared with the target term by term, never read as one number.",
    "two_forms": "Two forms of one answer in one line (25%, that is 1/4; 25%. The answer (as a"
    " fraction) is 1/4): the answer when either"
    " form is the target and both forms are one value; two different values are never correct.",
    "local_form": "A number written by a language's conventions (3,5 or 70.000 in German, ٣٫٥,"
    " 7万, 7만, 70 mil, 2 lakh, 1,20,000) is read by the reply's own language; a form with two"
    " readings there (1.234 in a reply whose language is not told, 3,500 in French) that give"
    " different verdicts is not scored: never correct.",
    "symbolic": "math-verify (sympy) finds the answer equal to the target: same value, set,"
    " interval or expression (decimals taken as exact fractions).",
}

OUTCOME_RULES: dict[str, str] = {
    "call_failed": CALL_FAILED_RULE,
    "truncated": "The reply hit max_tokens before it gave a marked final answer, or inside it.",
    "no_answer": "No answer could be found in the reply.",
    "maths_timeout": "The symbolic check ran out of time, so the item is not scored (never wrong).",
    "checker_error": "The symbolic checker failed or could not read the target, so the item is"
    " not scored.",
}

RULES: dict[str, str] = {**OUTCOME_RULES, **MATHS_RULES, **EQUIVALENCE_RULES}


_EQUALS = re.compile(r"(?<![<>!\\=:])=(?!=)")
_VARIABLE = r"(?:[A-Za-z]|\\[a-z]+)(?:_\{?\w+\}?)?(?:\([a-z]\))?"
_ASSIGNMENT = re.compile(rf"^\s*{_VARIABLE}\s*=\s*([^=<>]+)$")
_ASSIGNED_TO = re.compile(rf"^([^=<>]+?)\s*=\s*{_VARIABLE}\s*$")
_DECIMAL_LITERAL = re.compile(r"(?<![\d.,}])(\d+)\.(\d+)(?![\d.])")
_HEDGED = re.compile(r"\d\s*(?:或者?|か|또는|или|hoặc|या|أو)\s*\d")
"""Two numbers joined by "or" in a script sympy would drop ("12或13", "12か13")."""
_PLAIN_ROOT = re.compile(r"sqrt\(([^()]*)\)")


def _equals_signs(side: str) -> list[re.Match[str]]:
    """The "=" of `side` that are equations' signs (not those of <=, >=, != or \\leq)."""
    return list(_EQUALS.finditer(side))


def _value_side(side: str, *, reply: bool) -> str:
    """The value an equation states: "x = 4" and "4 = x" state 4, a chain "x = 5 + 6 = 11" its
    last member; a reply's worked sum "3 + 4 = 7" states 7; any other equation ("a + 3z = 0") is
    itself, and so is a list of assignments ("p = 5, q = 2"), which math-verify compares."""
    signs = _equals_signs(side)
    if not signs or "," in side or ";" in side:
        return side
    m = _ASSIGNMENT.match(side) or _ASSIGNED_TO.match(side)
    if m and len(signs) == 1:
        return m.group(1).strip()
    last = side[signs[-1].end() :].strip()
    if len(signs) > 1 or (reply and not re.search(r"[A-Za-z]", side[: signs[0].start()])):
        return last or side
    return side


def _strip_assignment(answer: str, target: str) -> tuple[str, str]:
    """Only one side an equation: it is read as the value it states (see `_value_side`)."""
    answer_eq, target_eq = bool(_equals_signs(answer)), bool(_equals_signs(target))
    if answer_eq == target_eq:
        return answer, target
    if answer_eq:
        return _value_side(answer, reply=True), target
    return answer, _value_side(target, reply=False)


def _exact_decimals(latex: str) -> str:
    """Decimals as exact fractions for sympy: "0.25" → "\\frac{25}{100}"."""
    return _DECIMAL_LITERAL.sub(
        lambda m: f"\\frac{{{m.group(1)}{m.group(2)}}}{{1{'0' * len(m.group(2))}}}", latex
    )


def _for_sympy(form: AnswerForm) -> str:
    """The expression as math-verify should read it: decimals exact, and plain-text maths
    ("sqrt(3)", "2**(1/4)") in LaTeX."""
    latex = form.expression
    if "\\" not in latex:
        latex = _PLAIN_ROOT.sub(r"\\sqrt{\1}", latex).replace("**", "^")
    latex = _exact_decimals(latex)
    return latex + ("\\%" if form.percent else "")


def _prepared(target: str) -> str:
    """A target that is a whole solution is read for its answer: all its boxes, else its marked
    final answer; any other target is itself."""
    boxed = target_boxed(target)
    if boxed is not None:
        return boxed
    if re.search(r"answer", target, re.IGNORECASE):
        found = find_maths_answer(target, asked=(), numeric=False)
        if found.value is not None and found.rule not in ("none", "bare_answer"):
            return found.value
    return target


def equivalent(
    answer: str, target: str, *, question: str = "", timeout_s: float = DEFAULT_TIMEOUT_S
) -> Equivalence:
    """Whether `answer` is `target` for `question` (see the module docstring for the order of
    the checks)."""
    target = _prepared(target)
    forms = _two_forms(answer, target, question=question, timeout_s=timeout_s)
    if forms is not None:
        return forms
    listed = _solution_lists(answer, target, question=question, timeout_s=timeout_s)
    if listed is not None:
        return listed
    answer, target = _strip_assignment(answer, target)
    a, t = read_form(answer), read_form(target)
    for side, form in (("answer", a), ("target", t)):
        if form.ambiguity:
            return Equivalence("ambiguous", "ambiguous", None, f"the {side} {form.ambiguity}")
    if a.malformed:  # a target is the dataset's own writing, read as it is
        return Equivalence("ambiguous", "malformed", None, f"the answer {a.malformed}")
    shapes = structure(a.expression), structure(t.expression)
    if shapes != (None, None):
        return _compare_structures(*shapes, question=question, timeout_s=timeout_s)
    if a.scale and re.search(rf"\b{re.escape(a.scale)}s?\b", question, re.IGNORECASE):
        a = replace(a, scale="", unit=a.scale)  # "7 dozen" answers "how many dozens?"
    conflict = unit_conflict_verdict(a, t, question)
    if conflict is not None:
        return conflict
    same = a.expression and canonical(a.expression) == canonical(t.expression)
    if same and a.percent == t.percent and a.scale == t.scale:
        return Equivalence("equal", "same_text", canonical(a.expression))
    a_num, t_num = number_of(a), number_of(t)
    hedged = _HEDGED.search(a.expression)
    if a_num is None and (in_words(a.expression) or hedged) and t_num is not None:
        a_num, why = stated_number(a.expression)
        if a_num is None and why != "no number":
            return Equivalence("different", "exact_number", None, f"the answer gives {why}")
    if a_num is None and t_num is not None and not a.scale and not a.percent:
        by_words = number_words(a.expression, t, value_of(t, t_num), question)
        if by_words is not None:
            return by_words
    if a_num is not None and t_num is not None:
        if value_of(a, a_num) != value_of(t, t_num):
            ambiguous = ambiguous_thousands(a, t)
            if ambiguous is not None:
                return ambiguous
        return compare_numbers(a, a_num, t, t_num, question)
    if a.scale != t.scale:
        said = f"{a.expression} {a.scale}".strip() if a.scale else "no scale word"
        return Equivalence("different", "scale", None, f"the answer says {said!r}")
    for side, form in (("answer", a), ("target", t)):
        if m := _UNREAD_SCALE.search(form.expression):
            why = f"the {side} has {m.group()!r}, Chinese scale characters that are no one scale"
            return Equivalence("ambiguous", "ambiguous", None, why)  # sympy would drop them
    comma = decimal_comma_verdict(a, a_num, t, t_num)
    if comma is not None:
        return comma
    return _symbolic(_for_sympy(a), _for_sympy(t), timeout_s)


_SAME_ANSWER = re.compile(
    r"^(?P<a>[^,;]{1,60}?)\s*[,;.]?\s*\b(?:that is|i\.\s?e\.,?|which is|or equivalently|soit"
    r"|c'est-à-dire|d\.\s?h\.|das heißt|es decir|cioè|ou seja"
    r"|the answer\s*\((?:as|in)\s[^()]{1,30}\)\s*(?:is|:))\s+(?P<b>[^,;]{1,60})$|"
    r"^(?P<c>[^,;，]{1,60}?)\s*[,，]?\s*(?:即|也就是|也就是说)\s*(?P<d>[^,;，]{1,60})$",
    re.IGNORECASE,
)


def _two_forms(answer: str, target: str, *, question: str, timeout_s: float) -> Equivalence | None:
    """Two forms of one answer in one line ("25%, that is 1/4"; "0.5，即 1/2"; "25%. The answer
    (as a fraction) is 1/4"): equal when
    either form is the target and the two forms are one value; two values are two answers,
    never correct. None when the answer is not so written."""
    m = _SAME_ANSWER.match(answer.strip())
    if m is None:
        return None
    first, second = (m.group("a"), m.group("b")) if m.group("a") else (m.group("c"), m.group("d"))
    if not all(re.search(r"\d", form) for form in (first, second)):
        return None  # "x = 3, that is the answer": one form
    one = equivalent(second, first, question="", timeout_s=timeout_s)
    if one.verdict != "equal":
        why = f"the answer gives two values, {first!r} and {second!r}"
        return Equivalence("different", "two_forms", None, why)
    for form in (first, second):
        eq = equivalent(form, target, question=question, timeout_s=timeout_s)
        if eq.verdict == "equal":
            return Equivalence("equal", "two_forms", eq.normalized, f"{form!r} is the target")
    return equivalent(first, target, question=question, timeout_s=timeout_s)


def _compare_structures(
    a: Structure | None, t: Structure | None, *, question: str, timeout_s: float
) -> Equivalence:
    """A sequence or ratio chain against the target, term by term: never one number."""
    if a is None or t is None or a.kind != t.kind:
        said = {"": "one value", "sequence": "a sequence", "ratio": "a ratio chain"}
        why = f"the answer is {said[a.kind if a else '']}, the target {said[t.kind if t else '']}"
        return Equivalence("different", "structure", None, why)
    if len(a.terms) != len(t.terms) or [x == "…" for x in a.terms] != [x == "…" for x in t.terms]:
        why = f"the {a.kind}s have different terms ({len(a.terms)} against {len(t.terms)})"
        return Equivalence("different", "structure", None, why)
    for x, y in zip(a.terms, t.terms, strict=True):
        if x == "…":
            continue
        eq = equivalent(x, y, question=question, timeout_s=timeout_s)
        if eq.verdict != "equal":
            proportional = eq.verdict == "different" and _same_ratio(a, t)
            if proportional:
                why = "the same ratio in other terms: whether lowest terms were asked is not known"
                return Equivalence("ambiguous", "ambiguous", None, why)
            why = f"term {x!r} against {y!r}: {eq.detail or eq.verdict}"
            rule = "structure" if eq.verdict == "different" else eq.rule
            return Equivalence(eq.verdict, rule, None, why)
    return Equivalence("equal", "structure", ", ".join(a.terms))


def _solution_lists(
    answer: str, target: str, *, question: str, timeout_s: float
) -> Equivalence | None:
    """Solutions listed as assignments ("x = 3 or x = 5", "p=5,q=2;p=7,q=2"): a set of solutions,
    not a hedge. Against a plain list ("3, 5") the values of one variable are compared as that
    list; against another list of assignments, group by group in any order. None when neither
    side has two groups or more (the other rules decide)."""
    a = solution_groups(read_form(answer).expression)
    t = solution_groups(read_form(target).expression)
    if (a is None or len(a) < 2) and (t is None or len(t) < 2):
        return None
    if a is not None and t is None:
        names = {name for group in a for name, _ in group}
        if len(names) != 1 or any(len(group) != 1 for group in a):
            return None
        values = ", ".join(value for group in a for _, value in group)
        return equivalent(values, target, question=question, timeout_s=timeout_s)
    if a is None or t is None:
        return None
    if len(a) != len(t):
        why = f"{len(a)} solutions against {len(t)}"
        return Equivalence("different", "solution_set", None, why)
    unmatched = list(t)
    for group in a:
        match = next((g for g in unmatched if _same_group(group, g, question, timeout_s)), None)
        if match is None:
            why = f"no solution of the target is {', '.join(f'{n} = {v}' for n, v in group)}"
            return Equivalence("different", "solution_set", None, why)
        unmatched.remove(match)
    return Equivalence(
        "equal", "solution_set", "; ".join(", ".join(f"{n}={v}" for n, v in g) for g in a)
    )


def _same_group(
    a: tuple[tuple[str, str], ...], t: tuple[tuple[str, str], ...], question: str, timeout_s: float
) -> bool:
    values, targets = dict(a), dict(t)
    if set(values) != set(targets) or len(values) != len(a):
        return False
    return all(
        canonical(values[n]) == canonical(targets[n])
        or equivalent(values[n], targets[n], question=question, timeout_s=timeout_s).verdict
        == "equal"
        for n in values
    )


def _same_ratio(a: Structure, t: Structure) -> bool:
    """Whether two ratio chains of plain numbers are proportional (2:8:18 and 1:4:9)."""
    if a.kind != "ratio":
        return False
    numbers = [parse_number(x) for x in (*a.terms, *t.terms) if x != "…"]
    if any(n is None or n.value == 0 for n in numbers):
        return False
    values = [n.value for n in numbers if n is not None]
    half = len(values) // 2
    return len({x / y for x, y in zip(values[:half], values[half:], strict=True)}) == 1


_UNREAD_SCALE = re.compile(r"\d\s*[" + CN_SCALE_CHARS + "".join(AMBIGUOUS_SCALES) + "]+")
"""Digits before Chinese scale characters left in an expression ("5亿万", "5千兆")."""


def _symbolic(answer: str, target: str, timeout_s: float) -> Equivalence:
    status, value, detail = call({"answer": answer, "target": target}, timeout_s)
    if status == "timeout":
        return Equivalence("timeout", "maths_timeout", None, detail)
    if status == "crashed":
        return Equivalence("error", "checker_error", None, detail)
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
    """Grade one reply to one maths sample; every rule part is a key of `RULES`. The reply's
    numbers are read in its own language first (`extract.local_numbers`); a reply whose
    ambiguous local form decides the verdict is `unscored` (rule `local_form`)."""
    local = read_local_numbers(text)
    score = _grade_reply(local.text, finish_reason, sample, asked, numeric, timeout_s)
    if local.alternative is None:
        return score
    other = _grade_reply(local.alternative, finish_reason, sample, asked, numeric, timeout_s)
    if other.outcome == score.outcome:
        return score
    why = f"{RULES['local_form']} ({local.ambiguity}: {score.outcome} one way, {other.outcome}"
    why += f" the other; target {sample.target!r})"
    return Score("unscored", "local_form", why, extracted=score.extracted)


def _grade_reply(
    text: str,
    finish_reason: FinishReason,
    sample: Sample,
    asked: tuple[str, ...],
    numeric: bool,
    timeout_s: float,
) -> Score:
    """Grade one reply whose numbers are already read in its language."""
    program = code_only(visible_reply(text))
    if program is not None:
        if finish_reason == "length":
            return Score("truncated", "truncated", RULES["truncated"])
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({program})")
    found = find_maths_answer(text, asked=asked, numeric=numeric, question=sample.input)
    cut_short = found.rule in ("none", "last_number", "retracted")
    if finish_reason == "length" and (found.at_end or cut_short):
        return Score("truncated", "truncated", RULES["truncated"], extracted=found.value)
    if found.rule == "retracted":
        why = f"{RULES['retracted']} ({found.note})"
        return Score("unscored", "retracted", why, extracted=found.withdrawn)
    rule, value, note = found.rule, found.value, found.note
    readable = fallback_text(visible_reply(text))
    if readable is None and rule in ("none", "last_number"):
        why = "the reply writes program code, which no fallback reads"
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({why})")
    if value is None and numeric:
        return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({found.note})")
    if value is None:
        value, status = mathverify_extraction(readable or "", timeout_s)
        if status != "ok":
            rule = "maths_timeout" if status == "timeout" else "checker_error"
            why = f"{RULES[rule]} (Math-Verify's extraction of the reply: {status})"
            return Score("unscored", rule, why)
        if value is None:
            return Score("no_answer", "no_answer", f"{RULES['no_answer']} ({found.note})")
        rule, note = "mathverify", "fallback: no answer marker in the reply"
    eq = equivalent(value, sample.target, question=sample.input, timeout_s=timeout_s)
    given = repr(value) + (
        f" (read as {eq.normalized})" if eq.normalized and eq.normalized != value else ""
    )
    via = f" Found by {rule}" + (f": {note}." if note else ".")
    format_ok = found.format_ok and rule == found.rule
    if eq.verdict in ("timeout", "error", "ambiguous"):
        return Score(
            "unscored",
            eq.rule,
            f"{RULES[eq.rule]} {eq.detail}. Answer {given}, target {sample.target!r}.{via}",
            extracted=value,
            format_ok=format_ok,
        )
    correct = eq.verdict == "equal"
    said = f"{given} {'equals' if correct else 'is not'} the target {sample.target!r}."
    if eq.detail:
        said += f" ({eq.detail})"
    return Score(
        "correct" if correct else "wrong",
        f"{rule}+{eq.rule}",
        said + via,
        extracted=value,
        normalized=eq.normalized,
        format_ok=format_ok,
    )
