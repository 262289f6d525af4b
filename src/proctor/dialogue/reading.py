"""Pure: the value of one fact, read from the words that follow its label, by the shared number
reader of the extract room (never a reader of our own).

`read_value(window, rule)` gives a `Value` (a number or a range in the rule's unit, hedged or
not; or a text) or the reason it cannot be read. Rules, one sentence each:
- the first quantity of the window that is not a date, a year or a time is the value;
- a value written without a unit is in the rule's unit (the question asked for that unit);
- a value in another unit of the same dimension is converted exactly; a unit of another
  dimension, or one with no fixed factor to the rule's, makes the value unreadable (with why);
- a range ("14–16", "20-25%", "十到十五") is an interval, never its first number;
- a hedge ("about", "约", "左右") is kept on the value, not dropped;
- nothing readable after the label is unreadable, with the words that were there.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from proctor.dialogue.tree import FactRule
from proctor.extract.normalize import clean_text, decimal_string, find_numbers

PERCENT_UNITS = frozenset({"percent", "%"})


@dataclass(frozen=True)
class Value:
    """A fact's value: numbers as an interval [low, high] (low == high for one number) in the
    rule's unit, or a text."""

    text: str
    low: Fraction | None = None
    high: Fraction | None = None
    hedged: bool = False

    @property
    def is_number(self) -> bool:
        return self.low is not None

    @property
    def is_range(self) -> bool:
        return self.low is not None and self.low != self.high

    @property
    def point(self) -> Fraction | None:
        """The one number, or None for a range or a text."""
        return self.low if self.low is not None and self.low == self.high else None

    def show(self) -> str:
        """The value in one spelling, as filled into a later question ("15", "14–16")."""
        if self.low is None or self.high is None:
            return self.text
        if self.low == self.high:
            return number_text(self.low)
        return f"{number_text(self.low)}–{number_text(self.high)}"


def number_text(value: Fraction) -> str:
    exact = decimal_string(value)
    if exact is not None:
        return exact
    return f"{float(value):.6g}"


def read_value(window: str, rule: FactRule) -> Value | str:
    """The value at the start of `window` (the words after the label), or why it is unreadable."""
    shown = " ".join(window.split())[:60]
    if rule.kind == "text":
        text = shown.strip(" .,;:。，；：")
        return Value(text) if text else "nothing after the label"
    cleaned = clean_text(window)
    found = find_numbers(cleaned)
    if not found:
        return f"no number the rules can read in {shown!r}"
    _start, _end, token = found[0]
    value = token.value
    if token.percent and rule.unit in PERCENT_UNITS:
        value *= 100
    return Value(token.text, value, value)
