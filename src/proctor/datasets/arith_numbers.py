"""Binary questions on plain numbers: the integer, decimal and bigint categories.

Tiers (see `arithmetic.TIER_RULES` for the one-line summaries):
- integer  easy: 2-digit ± 2-digit with at most one carry/borrow, 2-digit ×, ÷, mod a digit 3–9;
           medium: 3-digit ± 3-digit with a carry/borrow, 3-digit × 2-digit, 3–4-digit ÷/mod
           2-digit; hard: 4–5-digit ± 4–5-digit with ≥ 2 carries/borrows (difference may be
           negative), 4–5-digit × 2–3-digit, 5-digit ÷/mod 2–3-digit.
- decimal  easy: one place ± one place, one place × a digit, exact ÷ by a digit; medium: two
           places ±, one place × one place, ÷ rounded to 2 places; hard: three places ± (may be
           negative), two places × two places, ÷ rounded to 3 places.
- bigint   easy: 6–8-digit ± 6–8-digit; medium: 6-digit × 3–4-digit (735482 × 1849) or
           9–12-digit − 9–12-digit with ≥ 3 borrows; hard: 7–12-digit × 4–6-digit or 10–12-digit
           ÷ 3–4-digit (integer quotient).
Integer division is asked as "a ÷ b (integer quotient, rounded down)" and never comes out
even; remainders as "a mod b (remainder of a ÷ b)" and are never 0; operands are positive.
"""

from __future__ import annotations

from fractions import Fraction

from proctor.datasets.answers import decimal_target, natural_places
from proctor.datasets.draw import Draw, dec_text, plain_digits
from proctor.datasets.question import Question, display

__all__ = ["bigint_question", "decimal_question", "integer_question"]


def integer_question(d: Draw, tier: str) -> Question:
    """One integer question of `tier`: + - × integer-quotient or remainder."""
    op = d.pick(("+", "-", "*", "//", "%"))
    if op in ("+", "-"):
        if tier == "easy":
            return _add_sub(d, op, (2, 2), min_carries=0, max_carries=1, negative=False)
        if tier == "medium":
            return _add_sub(d, op, (3, 3), min_carries=1, max_carries=9, negative=False)
        return _add_sub(d, op, (4, 5), min_carries=2, max_carries=9, negative=True)
    while True:
        if tier == "easy":
            a, b = d.plain(2), d.small()
        elif tier == "medium":
            a, b = (d.plain(3), d.plain(2)) if op == "*" else (d.plain(3, 4), d.plain(2))
        else:
            a, b = (d.plain(4, 5), d.plain(2, 3)) if op == "*" else (d.plain(5), d.plain(2, 3))
        if op == "*" or a % b != 0:
            return _int_binary(a, op, b)


def bigint_question(d: Draw, tier: str) -> Question:
    """One big-integer question of `tier`."""
    if tier == "easy":
        return _add_sub(
            d, d.pick(("+", "-")), (6, 8), min_carries=0, max_carries=99, negative=False
        )
    if tier == "medium":
        if d.chance(1, 3):
            return _add_sub(d, "-", (9, 12), min_carries=3, max_carries=99, negative=True)
        return _int_binary(d.plain(6), "*", d.plain(3, 4))
    if d.chance(1, 3):
        while True:
            a, b = d.plain(10, 12), d.plain(3, 4)
            if a % b != 0:
                return _int_binary(a, "//", b)
    return _int_binary(d.plain(7, 12), "*", d.plain(4, 6))


def _carries(a: int, b: int, subtract: bool) -> int:
    """Columns that carry (a + b) or borrow (a − b, a ≥ b)."""
    count = carry = 0
    while a or b:
        da, db = a % 10, b % 10
        carry = int(da - db - carry < 0) if subtract else int(da + db + carry >= 10)
        count += carry
        a, b = a // 10, b // 10
    return count


def _add_sub(
    d: Draw,
    op: str,
    digits: tuple[int, int],
    *,
    min_carries: int,
    max_carries: int,
    negative: bool,
) -> Question:
    while True:
        a, b = d.plain(*digits), d.plain(*digits)
        if a == b:
            continue
        big, small = max(a, b), min(a, b)
        if op == "-" and not (negative and d.chance(1, 3)):
            a, b = big, small
        if min_carries <= _carries(big, small, op == "-") <= max_carries:
            return _int_binary(a, op, b)


def _int_binary(a: int, op: str, b: int) -> Question:
    if op == "+":
        value, shown = a + b, f"{a} + {b}"
    elif op == "-":
        value, shown = a - b, f"{a} - {b}"
    elif op == "*":
        value, shown = a * b, f"{a} × {b}"
    elif op == "//":
        value, shown = a // b, f"{a} ÷ {b} (integer quotient, rounded down)"
    else:
        value, shown = a % b, f"{a} mod {b} (remainder of {a} ÷ {b})"
    return Question(
        shown, f"{a} {op} {b}", (str(a), str(b)), str(value), "integer", extra=(("op", op),)
    )


def decimal_question(d: Draw, tier: str) -> Question:
    """One decimal question of `tier`; exact unless it says how many places to round to."""
    op = d.pick(("+", "-", "*", "/"))
    if op == "/":
        if tier == "easy":
            return _dec_even_division(d)
        if tier == "medium":
            return _dec_rounded(d, (2, 3, 2, 2), (1, 1, 1, 1), 2)
        return _dec_rounded(d, (3, 4, 2, 2), (1, 2, 1, 2), 3)
    left, right, negative = _DEC_SPECS[tier][op == "*"]
    while True:
        a, b = _dec_operand(d, left), _dec_operand(d, right)
        if op == "-" and _frac(a) < _frac(b) and not (negative and d.chance(1, 3)):
            a, b = b, a
        q = _dec_exact(a, op, b)
        if q is not None:
            return q


_Spec = tuple[int, int, int, int]
"""(fewest, most digits before the point, fewest, most places); _DIGIT means a digit 3–9."""
_DIGIT: _Spec = (0, 0, 0, 0)
_DEC_SPECS: dict[str, tuple[tuple[_Spec, _Spec, bool], tuple[_Spec, _Spec, bool]]] = {
    # tier: ((± left, ± right, may be negative), (× left, × right, -))
    "easy": (((1, 2, 1, 1), (1, 2, 1, 1), False), ((1, 2, 1, 1), _DIGIT, False)),
    "medium": (((2, 3, 2, 2), (1, 3, 1, 2), False), ((1, 2, 1, 1), (1, 1, 1, 1), False)),
    "hard": (((3, 4, 3, 3), (2, 4, 1, 3), True), ((2, 3, 2, 2), (1, 2, 2, 2), False)),
}


def _dec_operand(d: Draw, spec: _Spec) -> tuple[int, int]:
    """A plain decimal as (scaled integer, places)."""
    if spec == _DIGIT:
        return d.small(), 0
    places = d.between(spec[2], spec[3])
    return d.dec(spec[0], spec[1], places), places


def _frac(x: tuple[int, int]) -> Fraction:
    return Fraction(x[0], 10 ** x[1])


def _dec_exact(left: tuple[int, int], op: str, right: tuple[int, int]) -> Question | None:
    """a op b, or None when the operands are equal or the exact result is 0 or would end in 0
    (2.5 × 4.2 = 10.50): a target always shows every place its operands imply, no more."""
    fa, fb = _frac(left), _frac(right)
    value = fa + fb if op == "+" else fa - fb if op == "-" else fa * fb
    places = max(left[1], right[1]) if op in ("+", "-") else left[1] + right[1]
    if fa == fb or value == 0 or natural_places(value) != places:
        return None
    return _dec_question(left, op, right, value, places)


def _dec_even_division(d: Draw) -> Question:
    """Easy exact division: (q × k) ÷ k with q one place and k a digit 3–9."""
    while True:
        q, k = d.dec(1, 2, 1), d.small()
        if plain_digits(str(q * k)):
            return _dec_question((q * k, 1), "/", (k, 0), Fraction(q, 10), 1)


def _dec_rounded(d: Draw, left: _Spec, right: _Spec, places: int) -> Question:
    """a ÷ b whose exact value needs more than `places` digits, rounded ROUND_HALF_UP."""
    while True:
        a, b = _dec_operand(d, left), _dec_operand(d, right)
        value = _frac(a) / _frac(b)
        exact = natural_places(value)
        if exact is None or exact > places:
            break
    q = _dec_question(a, "/", b, value, places)
    return Question(
        f"{q.input} (round to {places} decimal places)",
        q.expression,
        q.operands,
        q.target,
        "decimal",
        places,
        (*q.extra, ("rounding", "ROUND_HALF_UP")),
    )


def _dec_question(
    left: tuple[int, int], op: str, right: tuple[int, int], value: Fraction, places: int
) -> Question:
    a, b = dec_text(*left), dec_text(*right)
    expression = f"{a} {op} {b}"
    return Question(
        display(expression),
        expression,
        (a, b),
        decimal_target(value, places),
        "decimal",
        places,
        (("op", op),),
    )
