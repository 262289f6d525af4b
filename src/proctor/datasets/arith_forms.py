"""Structured questions: the mixed (parenthesised expressions) and fraction categories.

Tiers:
- mixed     easy: 3 operands, "(a ± b) × k" or "a − (b ± c)" with 2-digit a, b and a digit k
            3–9, result positive; medium: 4 operands, "(a ± b) × k ± c", "(a ± b) ÷ k ± c" (the
            division comes out even) or "a ± k × (b ± c)"; hard: 4 operands with 2–3-digit
            numbers, "(a ± b) × (c ± d)", "(a ± b) ÷ e ± c" (even) or "a × (b ± c) ± e".
            Medium and hard results may be negative; every answer is an integer; the operands
            of one expression all differ.
- fraction  arithmetic — easy: a/b ± c/d where one denominator is 1–3 times the other, result
            positive; medium: a/b op c/d, op in + − × ÷, denominators 5–19 and different;
            hard: three fractions, denominators 5–40, any two of + − × ÷.
            comparison (one question in three) — easy: denominators 5–12; medium: denominators
            5–25 with the second numerator nearest to the first value, or (1 in 6) two unreduced
            forms of one fraction ("="); hard: the same with denominators 23–97.
A fraction answer is reduced "p/q" (an integer when q is 1); a comparison's canonical expression
is "(left) - (right)", whose sign is the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import gcd

from proctor.datasets.answers import comparison_target, fraction_target
from proctor.datasets.draw import Draw, plain_int
from proctor.datasets.question import Question, display

__all__ = ["fraction_question", "mixed_question"]

_Built = tuple[str, tuple[int, ...], int] | None
"""(canonical expression, operands in order, value), or None to draw again."""


def mixed_question(d: Draw, tier: str) -> Question:
    """One parenthesised integer expression of `tier` with 3–4 operands."""
    shapes = _MIXED[tier]
    while True:
        built = d.pick(shapes)(d)
        if built is not None and len(set(built[1])) == len(built[1]):
            expression, operands, value = built
            return Question(
                display(expression), expression, tuple(map(str, operands)), str(value), "integer"
            )


def _sign(d: Draw) -> str:
    return d.pick(("+", "-"))


def _apply(a: int, op: str, b: int) -> int:
    return a + b if op == "+" else a - b


def _easy_scaled(d: Draw) -> _Built:
    a, b, o, k = d.plain(2), d.plain(2), _sign(d), d.small()
    if o == "-":
        a, b = max(a, b), min(a, b)
    value = _apply(a, o, b) * k
    return (f"({a} {o} {b}) * {k}", (a, b, k), value) if a != b else None


def _easy_subtract_group(d: Draw) -> _Built:
    a, b, c, o = d.plain(3), d.plain(2), d.plain(2), _sign(d)
    value = a - _apply(b, o, c)
    return (f"{a} - ({b} {o} {c})", (a, b, c), value) if b != c and value > 0 else None


def _medium_scaled(d: Draw) -> _Built:
    a, b, c, k, o1, o2 = d.plain(2), d.plain(2), d.plain(2), d.small(), _sign(d), _sign(d)
    value = _apply(_apply(a, o1, b) * k, o2, c)
    return (f"({a} {o1} {b}) * {k} {o2} {c}", (a, b, k, c), value) if a != b else None


def _even_division(d: Draw, divisor: int, b: int, o1: str, hi: int) -> tuple[int, int] | None:
    """(a, q) with (a o1 b) = q × divisor and a plain in [13, hi], so the division is even."""
    q = d.between(13, 99)
    a = q * divisor - b if o1 == "+" else q * divisor + b
    return (a, q) if a != b and a <= hi and plain_int(a) else None


def _divided(d: Draw, k: int, b: int, c: int, o1: str, o2: str, hi: int) -> _Built:
    """`(a o1 b) / k o2 c` with `a o1 b` a multiple of k (a ≤ hi), or None when none is drawn."""
    found = _even_division(d, k, b, o1, hi)
    if found is None:
        return None
    a, q = found
    return f"({a} {o1} {b}) / {k} {o2} {c}", (a, b, k, c), _apply(q, o2, c)


def _medium_divided(d: Draw) -> _Built:
    k, b, c, o1, o2 = d.small(), d.plain(2), d.plain(2), _sign(d), _sign(d)
    return _divided(d, k, b, c, o1, o2, 999)


def _medium_group_scaled(d: Draw) -> _Built:
    a, k, b, c, o1, o2 = d.plain(3), d.small(), d.plain(2), d.plain(2), _sign(d), _sign(d)
    value = _apply(a, o2, k * _apply(b, o1, c))
    return (f"{a} {o2} {k} * ({b} {o1} {c})", (a, k, b, c), value) if b != c else None


def _hard_product(d: Draw) -> _Built:
    a, b, c, e, o1, o2 = d.plain(2, 3), d.plain(2, 3), d.plain(2), d.plain(2), _sign(d), _sign(d)
    value = _apply(a, o1, b) * _apply(c, o2, e)
    ok = a != b and c != e
    return (f"({a} {o1} {b}) * ({c} {o2} {e})", (a, b, c, e), value) if ok else None


def _hard_divided(d: Draw) -> _Built:
    e, b, c, o1, o2 = d.plain(2), d.plain(2, 3), d.plain(2, 3), _sign(d), _sign(d)
    return _divided(d, e, b, c, o1, o2, 9999)


def _hard_group_scaled(d: Draw) -> _Built:
    a, b, c, e, o1, o2 = d.plain(2), d.plain(3), d.plain(3), d.plain(3), _sign(d), _sign(d)
    value = _apply(a * _apply(b, o1, c), o2, e)
    return (f"{a} * ({b} {o1} {c}) {o2} {e}", (a, b, c, e), value) if b != c else None


_MIXED: dict[str, tuple[Callable[[Draw], _Built], ...]] = {
    "easy": (_easy_scaled, _easy_subtract_group),
    "medium": (_medium_scaled, _medium_divided, _medium_group_scaled),
    "hard": (_hard_product, _hard_divided, _hard_group_scaled),
}

_FRACTION_OPS = ("+", "-", "*", "/")
_SHOWN = {"*": "×", "/": "÷"}


def fraction_question(d: Draw, tier: str) -> Question:
    """One fraction question of `tier`: a comparison one time in three, else arithmetic."""
    return _comparison(d, tier) if d.chance(1, 3) else _arithmetic(d, tier)


def _arithmetic(d: Draw, tier: str) -> Question:
    terms: tuple[Fraction, ...]
    ops: tuple[str, ...]
    while True:
        if tier == "easy":
            x = d.proper(5, 12)
            den = x.denominator * d.between(1, 3)
            if den % 10 == 0:
                continue
            y, ops = d.proper(den, den), (_sign(d),)
            if ops[0] == "-":
                x, y = max(x, y), min(x, y)
            terms = (x, y)
        elif tier == "medium":
            terms, ops = (d.proper(5, 19), d.proper(5, 19)), (d.pick(_FRACTION_OPS),)
            if terms[0].denominator == terms[1].denominator:
                continue
        else:
            terms = (d.proper(5, 40), d.proper(5, 40), d.proper(5, 40))
            ops = (d.pick(_FRACTION_OPS), d.pick(_FRACTION_OPS))
        question = _fraction_arithmetic(terms, ops)
        if question is not None:
            return question


def _fraction_arithmetic(terms: tuple[Fraction, ...], ops: tuple[str, ...]) -> Question | None:
    """The question for terms joined by ops (usual precedence), or None when two terms are
    equal or the value is 0."""
    if len(set(terms)) < len(terms):
        return None
    written = [f"{t.numerator}/{t.denominator}" for t in terms]
    expression, shown = f"({written[0]})", written[0]
    pending: list[Fraction] = [terms[0]]
    pending_ops: list[str] = []
    for op, text, term in zip(ops, written[1:], terms[1:], strict=True):
        expression += f" {op} ({text})"
        shown += f" {_SHOWN.get(op, op)} {text}"
        if op in ("*", "/"):
            pending[-1] = pending[-1] * term if op == "*" else pending[-1] / term
        else:
            pending.append(term)
            pending_ops.append(op)
    value = pending[0]
    for op, term in zip(pending_ops, pending[1:], strict=True):
        value = value + term if op == "+" else value - term
    if value == 0:
        return None
    target, answer_type = fraction_target(value)
    extra = (("kind", "arithmetic"),) + ((("op", ops[0]),) if len(ops) == 1 else ())
    return Question(shown, expression, tuple(written), target, answer_type, extra=extra)


def _comparison(d: Draw, tier: str) -> Question:
    lo, hi = {"easy": (5, 12), "medium": (5, 25), "hard": (23, 97)}[tier]
    if tier != "easy" and d.chance(1, 6):
        base = d.proper(5, 12) if tier == "medium" else d.proper(13, 30)
        k1 = d.between(2, 5)
        k2 = d.between(2, 4)
        k2 = k2 + 1 if k2 >= k1 else k2
        left = (base.numerator * k1, base.denominator * k1)
        right = (base.numerator * k2, base.denominator * k2)
        return _comparison_question(left, right)
    while True:
        x = d.proper(lo, hi)
        q = d.between(lo, hi)
        if tier == "easy":
            p = d.between(2, q - 1)
        else:  # the numerator that brings q's fraction nearest to x
            p = (2 * x.numerator * q + x.denominator) // (2 * x.denominator)
        y_ok = 2 <= p < q and q % 10 != 0 and gcd(p, q) == 1
        if y_ok and q != x.denominator:
            return _comparison_question((x.numerator, x.denominator), (p, q))


def _comparison_question(left: tuple[int, int], right: tuple[int, int]) -> Question:
    lt, rt = f"{left[0]}/{left[1]}", f"{right[0]}/{right[1]}"
    target = comparison_target(Fraction(*left), Fraction(*right))
    return Question(
        f"Compare {lt} and {rt}: which sign goes between them, <, > or =?",
        f"({lt}) - ({rt})",
        (lt, rt),
        target,
        "comparison",
        extra=(("kind", "comparison"),),
    )
