"""Exact evaluation of canonical ASCII arithmetic: an AST walk over whitelisted nodes, never `eval`.

The canonical form uses Python's ASCII operators (+ - * / // %), parentheses, unary minus and
plain decimal literals ("42", "3.75"); every number is read from its source text into a
`Fraction`, so "0.1 + 0.2" is exactly 3/10. The × and ÷ a model is shown belong to the display
form, which is kept separately and is never evaluated.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

__all__ = ["evaluate"]

_LITERAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")

_BINARY: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: Fraction(a // b),
    ast.Mod: lambda a, b: a % b,
}


def evaluate(expression: str) -> Fraction:
    """The exact value of an ASCII expression of + - * / // %, parentheses, unary +/- and plain
    decimal literals; anything else raises ValueError."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError(f"not an arithmetic expression: {e.msg} in {expression!r}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ValueError(f"not an arithmetic expression: {expression!r}") from None
    try:
        return _walk(tree.body, expression.strip())
    except ZeroDivisionError:
        raise ValueError(f"division by zero in {expression!r}") from None
    except RecursionError:
        raise ValueError(f"expression nested too deeply: {expression[:40]!r}...") from None


def _walk(node: ast.expr, source: str) -> Fraction:
    if isinstance(node, ast.BinOp):
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ValueError(f"operator {type(node.op).__name__} is not allowed")
        return op(_walk(node.left, source), _walk(node.right, source))
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            return -_walk(node.operand, source)
        if isinstance(node.op, ast.UAdd):
            return _walk(node.operand, source)
        raise ValueError(f"unary operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.Constant):
        return _literal(node, source)
    raise ValueError(f"{type(node).__name__} is not allowed in an arithmetic expression")


def _literal(node: ast.Constant, source: str) -> Fraction:
    """A number is read from its own source text, so a decimal literal is never a float."""
    if isinstance(node.value, bool) or not isinstance(node.value, int | float):
        raise ValueError(f"constant {node.value!r} is not a number")
    text = ast.get_source_segment(source, node)
    if text is None or not _LITERAL.fullmatch(text):
        raise ValueError(f"number {text!r} is not a plain decimal literal such as 42 or 3.75")
    return Fraction(Decimal(text))
