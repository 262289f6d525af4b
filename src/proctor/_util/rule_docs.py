"""The rules tables the reports print: each rule function's name and its docstring on one line."""

from __future__ import annotations

from collections.abc import Callable


def one_line(doc: str | None) -> str:
    """A docstring with its line breaks and indentation folded into single spaces."""
    return " ".join((doc or "").split())


def rule_docs(*rules: Callable[..., object]) -> dict[str, str]:
    """Each rule's name → its docstring on one line, in the order given."""
    return {rule.__name__: one_line(rule.__doc__) for rule in rules}
