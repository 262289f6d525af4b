"""One generated question before it gets an id: what the model sees, the canonical expression
that defines its answer, and the exact answer."""

from __future__ import annotations

from dataclasses import dataclass

from proctor.types import AnswerType

__all__ = ["Question", "display"]


@dataclass(frozen=True)
class Question:
    input: str
    """As shown to the model: × and ÷ for multiplication and division."""
    expression: str
    """Canonical ASCII form whose exact value (or sign, for a comparison) defines the target."""
    operands: tuple[str, ...]
    """The question's own numbers, as written in `input`."""
    target: str
    answer_type: AnswerType
    decimals: int | None = None
    extra: tuple[tuple[str, str], ...] = ()
    """More metadata, e.g. ("op", "*") for a binary question."""


def display(expression: str) -> str:
    """The display form of a space-separated canonical expression: " * " → " × ", " / " → " ÷ "."""
    return expression.replace(" * ", " × ").replace(" / ", " ÷ ")
