"""Why a numeric answer is wrong: the arithmetic error taxonomy.

`classify_error(sample, score)` names the first class whose rule fits a wrong numeric answer, in
the order of `ERROR_CLASSES` (the more specific explanation first); "other" when none fits. It
reads the sample's target and answer type, and, for the rules that need the question,
`metadata["expression"]` (Python syntax with + - * / // %), `metadata["op"]` and
`metadata["operands"]` of two-operand questions. It never calls `eval`: the expression is walked
as an AST with exact fractions.

Numbers are compared in value (`Score.normalized` is the answer's canonical spelling: "1234",
"-12.5", "3/4"); digit rules read the plain decimal spelling of both values, without sign.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import (
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Decimal,
    localcontext,
)
from fractions import Fraction
from functools import lru_cache

from proctor.extract.normalize import decimal_string
from proctor.types import GradedItem, Sample, Score

TAXONOMY_RULES: dict[str, str] = {
    "format_only": "The number is right but written in a form the question did not ask for.",
    "sign_error": "The answer is the target with the opposite sign.",
    "wrong_operation": "The answer is what the question gives with one of its operations"
    " replaced by another of +, −, ×, ÷ and remainder (÷ and integer ÷ count as one).",
    "decimal_shift": "The answer is the target times a power of ten, with a decimal point in"
    " one of them: the point moved.",
    "power_of_ten": "The answer is the target times a power of ten, both whole numbers: zeros"
    " added or dropped.",
    "rounding": "The answer is the exact value (or the target) rounded another way — half-up,"
    " half-even, up or down, to the answer's own number of decimals — or left unrounded.",
    "transposed_digits": "The answer is the target with two neighbouring digits swapped.",
    "carry_borrow": "In an addition or subtraction, the answer is the target with one or more"
    " carries or borrows forgotten or doubled, or with each column's smaller digit taken from"
    " its larger one.",
    "dropped_or_extra_digit": "The answer is the target with one digit left out or one digit"
    " added.",
    "other": "The wrong answer fits none of the error rules.",
}
"""Class → its one-sentence rule, in the order the rules are tried."""

ERROR_CLASSES: tuple[str, ...] = tuple(TAXONOMY_RULES)
NUMERIC_TYPES = frozenset({"integer", "decimal", "fraction"})

_Exact = Fraction | int
"""An exact value: whole numbers stay `int` while a question's value is worked out (Fraction
arithmetic costs ~50× int's), anything with a fraction part is a `Fraction`; both compare and
hash alike."""

_BinOp = Callable[[_Exact, _Exact], _Exact]


def _floordiv(a: _Exact, b: _Exact) -> _Exact:
    return a // b


def _truediv(a: _Exact, b: _Exact) -> _Exact:
    """Exact division (int / int would be a float)."""
    # Fraction(a) of a Fraction goes through the numbers ABCs: a division per swap paid it.
    return (a if isinstance(a, Fraction) else Fraction(a)) / b


_OPS: dict[type[ast.operator], _BinOp] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: _truediv,
    ast.FloorDiv: _floordiv,
    ast.Mod: operator.mod,
}


def classify_error(sample: Sample, score: Score) -> str | None:
    """The error class of a wrong numeric answer; None when the score is not one (correct, not
    graded wrong, or a non-numeric answer type)."""
    if score.outcome != "wrong" or sample.answer_type not in NUMERIC_TYPES:
        return None
    if "format_only" in score.rule:
        return "format_only"
    answer = _number(score.normalized)
    target = _number(sample.target)
    if answer is None or target is None or answer == target:
        return "other"
    for name, rule in _RULES:
        if rule(answer, target, sample):
            return name
    return "other"


def taxonomy_counts(items: Iterable[GradedItem]) -> dict[str, dict[str, int]]:
    """Model → error class → count of wrong numeric answers; classes in `ERROR_CLASSES` order,
    only those that occur; models in order of first appearance (a model with no classified
    error gets an empty mapping)."""
    counts: dict[str, TaxonomyTally] = {}
    for item in items:
        model = item.record.model
        (counts.get(model) or counts.setdefault(model, TaxonomyTally())).add(item)
    return {model: tally.counts() for model, tally in counts.items()}


def forget() -> None:
    """Empty the memos of questions, numbers and roundings (35-50 MB after 100,000 wrong
    answers): they serve every model's answers to one paper, and are dropped once a report's
    statistics are made (`model_parts.fold`) instead of staying full for the process."""
    _question_of.cache_clear()
    _number.cache_clear()
    _rounded.cache_clear()


class TaxonomyTally:
    """One model's error classes (`taxonomy_counts`), counted one answer at a time."""

    def __init__(self) -> None:
        self.found: dict[str, int] = {}

    def add(self, item: GradedItem) -> None:
        name = classify_error(item.sample, item.score)
        if name is not None:
            self.found[name] = self.found.get(name, 0) + 1

    def counts(self) -> dict[str, int]:
        """Error class → count, in `ERROR_CLASSES` order, only those that occur."""
        return {name: self.found[name] for name in ERROR_CLASSES if name in self.found}


# ---- the rules, in order ---------------------------------------------------------------------


def _sign_error(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    return target != 0 and answer == -target


def _wrong_operation(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    return answer in _question(sample.metadata).wrong_operation_values


def _family(op_type: type[ast.operator]) -> type[ast.operator]:
    """÷ and integer ÷ are one operation; reading one as the other is a rounding matter."""
    return ast.Div if op_type is ast.FloorDiv else op_type


def _is_fraction_literal(node: ast.BinOp, literals: set[str]) -> bool:
    """A "p/q" operand of a fraction question is a number, not a division to get wrong."""
    left, right = node.left, node.right
    return (
        isinstance(node.op, ast.Div)
        and isinstance(left, ast.Constant)
        and isinstance(right, ast.Constant)
        and type(left.value) is int
        and type(right.value) is int
        and f"{left.value}/{right.value}" in literals
    )


def _power_of_ten_ratio(answer: Fraction, target: Fraction) -> bool:
    if answer == 0 or target == 0 or answer == target:
        return False
    ratio = answer / target
    if ratio < 0:
        return False
    if ratio < 1:
        ratio = 1 / ratio
    if ratio.denominator != 1:
        return False
    value = ratio.numerator
    while value % 10 == 0:
        value //= 10
    return value == 1


def _decimal_shift(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    both_whole = answer.denominator == 1 and target.denominator == 1
    return not both_whole and _power_of_ten_ratio(answer, target)


def _power_of_ten(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    both_whole = answer.denominator == 1 and target.denominator == 1
    return both_whole and _power_of_ten_ratio(answer, target)


_ROUNDINGS = (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_FLOOR, ROUND_CEILING)


@lru_cache(maxsize=65536)
def _rounded(value: _Exact, places: int, mode: str) -> Fraction:
    with localcontext() as context:
        context.prec = 80
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return Fraction(exact.quantize(Decimal(1).scaleb(-places), rounding=mode))


def _rounding(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    spelled = _decimal_spelling(answer)
    if spelled is None:
        return False
    places = len(spelled.partition(".")[2])
    exact = _question(sample.metadata).exact
    sources = [value for value in (exact, target) if value is not None]
    if exact is not None and answer == exact:
        return True  # left unrounded where the question asked for a rounding
    return any(
        _rounded(value, places, mode) == answer
        for value in sources
        if _may_round_to(value, answer, places)
        for mode in _ROUNDINGS
    )


def _may_round_to(value: _Exact, answer: Fraction, places: int) -> bool:
    """False when no rounding of `value` to `places` decimals gives `answer`: each mode moves
    it by less than one unit of the last place (the margin of two covers `_rounded`'s 80 digits,
    which are asked as before wherever they could matter or fail)."""
    if places > 20 or not -(10**40) < value < 10**40:
        return True
    return bool(-2 < (value - answer) * 10**places < 2)


def _transposed_digits(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    pair = _digit_strings(answer, target)
    if pair is None:
        return False
    a, t = pair
    if len(a) != len(t):
        return False
    diffs = [i for i in range(len(a)) if a[i] != t[i]]
    if len(diffs) != 2 or diffs[1] != diffs[0] + 1:
        return False
    i = diffs[0]
    return a[i].isdigit() and a[i + 1].isdigit() and a[i] == t[i + 1] and a[i + 1] == t[i]


def _carry_borrow(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    op = sample.metadata.get("op", "")
    operands = _question(sample.metadata).operands
    if op not in ("+", "-") or len(operands) != 2:
        return False
    x, y = operands
    if x is None or y is None or x < 0 or y < 0 or (answer < 0) != (target < 0):
        return False
    scale = 1
    while any((v * scale).denominator != 1 for v in (x, y, answer, target)):
        scale *= 10
        if scale > 10**30:
            return False
    big, small = int(x * scale), int(y * scale)
    got = abs(int(answer * scale))
    if op == "-" and big < small:
        big, small = small, big
    columns = _carry_columns(big, small, subtract=op == "-")
    if _is_sum_of_columns(abs(got - abs(int(target * scale))), columns):
        return True
    return op == "-" and got == _smaller_from_larger(big, small)


def _dropped_or_extra_digit(answer: Fraction, target: Fraction, sample: Sample) -> bool:
    pair = _digit_strings(answer, target)
    if pair is None:
        return False
    a, t = pair
    if abs(len(a) - len(t)) != 1:
        return False
    longer, shorter = (a, t) if len(a) > len(t) else (t, a)
    return any(
        longer[i].isdigit() and longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer))
    )


_RULES: tuple[tuple[str, Callable[[Fraction, Fraction, Sample], bool]], ...] = (
    ("sign_error", _sign_error),
    ("wrong_operation", _wrong_operation),
    ("decimal_shift", _decimal_shift),
    ("power_of_ten", _power_of_ten),
    ("rounding", _rounding),
    ("transposed_digits", _transposed_digits),
    ("carry_borrow", _carry_borrow),
    ("dropped_or_extra_digit", _dropped_or_extra_digit),
)


# ---- helpers ---------------------------------------------------------------------------------


@lru_cache(maxsize=65536)  # each wrong answer reads its answer and target: replies repeat
def _number(text: str | None) -> Fraction | None:
    """An exact value from a canonical spelling ("1234", "-12.5", "3/4"); None otherwise."""
    if text is None:
        return None
    try:
        return Fraction(text.strip().replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None


def _decimal_spelling(value: Fraction) -> str | None:
    """The plain decimal spelling of |value| ("31.96"), or None when it does not terminate."""
    return decimal_string(abs(value))


_Spelled = tuple[Fraction, Fraction, tuple[str, str] | None]
_last_spelled: list[_Spelled | None] = [None]
"""The last answer and target spelled, by identity: two digit rules read the same pair of one
wrong answer (one entry, replaced whole: any thread reads a consistent one)."""


def _digit_strings(answer: Fraction, target: Fraction) -> tuple[str, str] | None:
    last = _last_spelled[0]
    if last is not None and last[0] is answer and last[1] is target:
        return last[2]
    spelled = _spelled_pair(answer, target)
    _last_spelled[0] = (answer, target, spelled)
    return spelled


def _spelled_pair(answer: Fraction, target: Fraction) -> tuple[str, str] | None:
    if (answer < 0) != (target < 0):
        return None
    a, t = _decimal_spelling(answer), _decimal_spelling(target)
    if a is None or t is None:
        return None
    return a, t


def _carry_columns(big: int, small: int, *, subtract: bool) -> set[int]:
    """Columns (1 = tens) that receive a carry (addition) or give a borrow (subtraction)."""
    columns: set[int] = set()
    carry = 0
    position = 0
    while big or small or carry:
        top, bottom = big % 10, small % 10
        if subtract:
            carry = 1 if top - bottom - carry < 0 else 0
        else:
            carry = 1 if top + bottom + carry >= 10 else 0
        position += 1
        if carry:
            columns.add(position)
        big //= 10
        small //= 10
    return columns


def _is_sum_of_columns(difference: int, columns: set[int]) -> bool:
    """difference = Σ 10^j over a non-empty subset of `columns`."""
    if difference <= 0:
        return False
    position = 0
    while difference:
        digit = difference % 10
        if digit > 1 or (digit == 1 and position not in columns):
            return False
        difference //= 10
        position += 1
    return True


def _smaller_from_larger(big: int, small: int) -> int:
    """Column-wise |top − bottom|: the classic borrow mistake."""
    result, place = 0, 1
    while big or small:
        result += abs(big % 10 - small % 10) * place
        big //= 10
        small //= 10
        place *= 10
    return result


def _expression(text: str) -> ast.Expression | None:
    if not text or len(text) > 500:
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    return tree if _evaluate(tree, {}) is not None else None


@dataclass(frozen=True)
class _Question:
    """What the rules read of a question, worked out once per question (every model's wrong
    answer to it asks the same): the values of the expression with one operation replaced by
    another of a different family, its exact value, its operands."""

    wrong_operation_values: frozenset[_Exact]
    exact: _Exact | None
    operands: tuple[Fraction | None, ...]


def _question(metadata: Mapping[str, str]) -> _Question:
    return _question_of(metadata.get("expression", ""), metadata.get("operands", ""))


@lru_cache(maxsize=16384)
def _question_of(expression: str, operands: str) -> _Question:
    tree = _expression(expression)
    literals = {text for text in operands.split() if "/" in text}
    return _Question(
        wrong_operation_values=_wrong_operation_values(tree, literals),
        # No "//" in the text, no integer division to read as true division: no walk for one.
        exact=_exact_value(tree) if "//" in expression or tree is None else _evaluate(tree, {}),
        operands=tuple(_number(text) for text in operands.split()),
    )


def _wrong_operation_values(tree: ast.Expression | None, literals: set[str]) -> frozenset[_Exact]:
    """The question's value with one of its operations replaced by one of another family."""
    if tree is None:
        return frozenset()
    # It evaluates (`_expression` checked): each subtree's value as written, with the values it
    # takes under one swap inside it, in one pass (a swap changes only the nodes above it).
    return frozenset(_one_swap(tree.body, literals)[1])


def _one_swap(node: ast.expr, literals: set[str]) -> tuple[_Exact, list[_Exact]]:
    """(`node`'s value as written, its values with exactly one operation inside it replaced by
    one of another family); a replacement that divides by zero anywhere above it is no value."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner, inner_variants = _one_swap(node.operand, literals)
        if isinstance(node.op, ast.USub):
            return -inner, [-v for v in inner_variants]
        return inner, inner_variants
    if not (isinstance(node, ast.BinOp) and type(node.op) in _OPS):
        return _value(node, {}), []  # a number (or ValueError: not arithmetic)
    left, left_variants = _one_swap(node.left, literals)
    right, right_variants = _one_swap(node.right, literals)
    apply = _OPS[type(node.op)]
    tries = [(apply, v, right) for v in left_variants]
    tries += [(apply, left, v) for v in right_variants]
    if not _is_fraction_literal(node, literals):
        family = _family(type(node.op))
        tries += [(op, left, right) for t, op in _OPS.items() if _family(t) != family]
    # A list, made a set once at the top: a Fraction's hash is a modular inverse, each time.
    variants: list[_Exact] = []
    for op, x, y in tries:
        try:
            variants.append(op(x, y))
        except (ValueError, ZeroDivisionError):
            continue
    return apply(left, right), variants


def _exact_value(tree: ast.Expression | None) -> _Exact | None:
    """The question's value before any rounding: integer division read as true division."""
    if tree is None:
        return None
    swaps: dict[int, _BinOp] = {
        id(node): _truediv
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
    }
    return _evaluate(tree, swaps)


def _evaluate(tree: ast.Expression, swaps: Mapping[int, _BinOp]) -> _Exact | None:
    """Exact value of an arithmetic AST, with the operation of the nodes in `swaps` replaced;
    None for anything that is not plain arithmetic or divides by zero."""
    try:
        return _value(tree.body, swaps)
    except (ValueError, ZeroDivisionError):
        return None


def _value(node: ast.expr, swaps: Mapping[int, _BinOp]) -> _Exact:
    # A module-level function, not a closure: a closure that calls itself is a reference cycle,
    # and with the collector paused (reports pause it) every evaluation's cycle, holding its
    # dicts, stayed in memory (~190 MB for 20,000 wrong answers).
    value: _Exact
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value = node.value if type(node.value) is int else Fraction(str(node.value))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _value(node.operand, swaps)
        value = -value if isinstance(node.op, ast.USub) else value
    elif isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        apply = swaps.get(id(node), _OPS[type(node.op)])
        value = apply(_value(node.left, swaps), _value(node.right, swaps))
    else:
        raise ValueError("not plain arithmetic")
    return value
