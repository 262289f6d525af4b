"""Pure: the value of one fact, read from the words that follow its label, by the shared number
reader of the extract room (`extract.quantities.find_quantities`; never a reader of our own).

`read_value(window, rule)` gives a `Value` (a number or a range in the rule's unit and scale,
hedged or not; or a text) or the reason it cannot be read. Rules, one sentence each:
- the first quantity of the window that is not a date, a time or a label is the value (a bare
  year is skipped when another quantity follows it: "(2023): 120" is 120);
- a value written without a unit is in the rule's unit; written without a scale word it is in
  the rule's scale too ("Gain: 14.604" is 14.604 million when the fact counts millions), with
  one, or with its unit and a value of at least the scale, it is converted ("14,604,000
  USD", "0.014604 billion USD" are 14.604 million);
- a value in another unit of the same dimension is converted exactly ("1.8亿千克" is 180000 t);
  months, quarters and years against days or weeks become the span they cover (a month is 28–31
  days: "about three months" is 84–93 days);
- a unit of another dimension or currency is another statement (`other_unit`: wrong for a
  stage, a contradiction of an earlier value); an ambiguous unit ("tons"), a word the unit
  table does not know, a bound ("more than 100") or an ambiguous number ("1,23") is
  `ambiguous` (unscored), with why; so is a unit without a scale word and a value under the
  rule's scale ("18.255 USD" where the fact counts millions could be either);
- a number followed by "of"/"的" counts a part of something else ("a third of a year", "120 of
  them"): ambiguous, unless it is a percentage ("35.7% of sales");
- a range ("14–16", "20-25%", "十到十五") is an interval, never its first number; a hedge
  ("about", "约", "左右") is kept on the value, not dropped;
- nothing readable after the label is `none` (a stage expecting a value missed it; consistency
  cannot be checked), with the words that were there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from proctor.dialogue.tree import FactRule
from proctor.extract.normalize import decimal_string
from proctor.extract.quantities import Quantity, find_quantities
from proctor.extract.quantity_match import parse_unit
from proctor.extract.units import Unit, calendar_span


@dataclass(frozen=True)
class Value:
    """A fact's value: numbers as an interval [low, high] (low == high for one number) in the
    rule's unit and scale, or a text."""

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


UnreadableKind = Literal["none", "ambiguous", "other_unit"]


@dataclass(frozen=True)
class Unreadable:
    """Why a value cannot be read: `none` (no number there: a stage expecting one missed it),
    `ambiguous` (several readings: unscored), `other_unit` (a unit of another dimension or
    currency: a different statement, wrong for a stage and a contradiction of an earlier
    value)."""

    why: str
    kind: UnreadableKind


def number_text(value: Fraction) -> str:
    exact = decimal_string(value)
    if exact is not None:
        return exact
    return f"{float(value):.6g}"


_SHARE_OF = re.compile(r"\s*(?:of\b|的)", re.IGNORECASE)
"""After a number: it counts a part of something else ("a third of a year", "120 of them")."""


@lru_cache(maxsize=256)
def rule_unit(spec: str | None, scale: float) -> tuple[Unit | None, Fraction]:
    """The rule's unit and scale ("million USD" → USD, 10⁶); ValueError for an unknown unit."""
    words_scale, unit = parse_unit(spec or "")
    return unit, words_scale * Fraction(str(scale))


def _first(found: list[Quantity]) -> Quantity | None:
    useful = [q for q in found if q.kind not in ("date", "time", "label")]
    if len(useful) > 1 and useful[0].year_like:
        useful = useful[1:]
    return useful[0] if useful else None


def read_value(window: str, rule: FactRule) -> Value | Unreadable:
    """The value at the start of `window` (the words after the label), or why it is unreadable."""
    shown = " ".join(window.split())[:60]
    if rule.kind == "text":
        text = shown.strip(" .,;:。，；：")
        return Value(text) if text else Unreadable("nothing after the label", "none")
    q = _first(find_quantities(window))
    if q is None:
        return Unreadable(f"no number the rules can read in {shown!r}", "none")
    if q.kind == "ambiguous":
        return Unreadable(f"{q.text!r} is ambiguous: {q.reason}", "ambiguous")
    if q.bound:
        return Unreadable(f"{q.text!r} is a bound ({q.describe()}), not a value", "ambiguous")
    share = _SHARE_OF.match(window, q.end)
    if share and not (q.unit is not None and q.unit.dimension == "ratio"):
        why = f"{q.text!r} is a part of something ({share.group().strip()!r}…), not a value"
        return Unreadable(why, "ambiguous")
    unit, scale = rule_unit(rule.unit, rule.scale)
    low, high = q.low, q.top
    if q.unit is not None and unit is not None and q.unit.key != unit.key:
        if q.unit.ambiguous:
            return Unreadable(f"{q.text!r}: the unit {q.unit.name} is ambiguous", "ambiguous")
        if q.unit.dimension == unit.dimension:
            low, high = low * q.unit.factor / unit.factor, high * q.unit.factor / unit.factor
        else:
            span = calendar_span(low, q.unit, unit)
            top = calendar_span(high, q.unit, unit)
            if span is None or top is None:
                why = f"{q.text!r} is in {q.unit.name}, which is not {unit.name}"
                return Unreadable(why, "other_unit")
            low, high = span[0], top[1]
    elif q.unknown_unit and unit is not None:
        why = f"{q.text!r}: {q.unknown_unit!r} is not a unit the rules know"
        return Unreadable(why, "ambiguous")
    if scale != 1:
        if q.scale == 1 and q.unit is not None and unit is not None and abs(q.low) < scale:
            why = (
                f"{q.text!r} names the unit but no scale: {number_text(q.low)} {unit.name} or "
                f"{number_text(q.low)} × {number_text(scale)}?"
            )
            return Unreadable(why, "ambiguous")
        if q.scale != 1 or q.unit is not None:
            low, high = low / scale, high / scale
    return Value(q.text, low, high, q.hedged)
