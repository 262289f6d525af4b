"""Whether a maths answer's unit makes it another quantity than the target (rule `unit`).

Units are the one unit table's (`extract.units`), compared, never converted:
- answer and target both have a unit: one unit in two spellings agrees ("in" and "inches",
  "mL" and "cm³"), another size or kind differs ("5 km" is not "5 m", "cents" are not
  "dollars"), an ambiguous spelling whose meanings disagree is ambiguous ("tons" against
  "tonnes"); a word the table does not know differs only from a unit of measure ("5 apples" is
  not "5 km"), and two count nouns never conflict ("people", "students");
- only the answer has one: it must be one the question counts in, among the units of the same
  kind the question names ("Janet runs 5 meters…"), where clock and calendar time are one kind
  and money is checked only against the unit the question asks in ("how many cents"), since
  money named in passing is a price; a question that names none of that kind checks nothing.
"""

from __future__ import annotations

from typing import Literal

from proctor.extract.maths_form import form_unit, units_named
from proctor.extract.quantity_match import parse_unit, unit_asked
from proctor.extract.units import Unit, measures, same_unit

Conflict = tuple[Literal["different", "ambiguous"], str]
"""How the unit conflicts, and why."""


def unit_conflict(
    answer: str, target: str, question: str, *, unit: Unit | None = None
) -> Conflict | None:
    """Why an answer written in `answer` (or read as `unit`) is another quantity than a target
    in `target` ("" for none) for `question`, or None."""
    a_unit = unit or (form_unit(answer) if answer else None)
    if answer and target:
        t_unit = form_unit(target)
        said = f"the answer is in {answer}, the target in {target}"
        if a_unit is None or t_unit is None:
            known = a_unit or t_unit
            return ("different", said) if known is not None and measures(known) else None
        if not (measures(a_unit) or measures(t_unit)):
            return None  # two count nouns ("people", "cases"): the words, not the value
        return _verdict(same_unit(a_unit, t_unit), said)
    if a_unit is None or not question or not measures(a_unit):
        return None
    asked = [q for q in _question_units(question, a_unit) if _comparable(a_unit, q)]
    if not asked:
        return None
    verdicts = [same_unit(a_unit, q) for q in asked]
    names = ", ".join(q.name for q in asked)
    best = True if True in verdicts else None if None in verdicts else False
    return _verdict(best, f"the answer is in {answer}; the question counts in {names}")


def _question_units(question: str, answer_unit: Unit) -> list[Unit]:
    """The units a question counts in, for an answer in `answer_unit`: every unit of measure it
    names; for money only the unit it asks in."""
    if not _money(answer_unit):
        return units_named(question)
    spec = unit_asked(question)
    try:
        unit = parse_unit(spec)[1] if spec else None
    except ValueError:
        return []
    return [unit] if unit is not None else []


def _comparable(a: Unit, b: Unit) -> bool:
    """Whether any meaning of `a` measures what a meaning of `b` does: money is money whatever
    the currency (yuan for a question in cents is another unit), and time is time whether a
    clock's or a calendar's (minutes for a question in years)."""
    return any(_kind(x) == _kind(y) for x in a.readings or (a,) for y in b.readings or (b,))


def _kind(unit: Unit) -> str:
    if _money(unit):
        return "money"
    return "time" if unit.dimension in ("time", "calendar") else unit.dimension


def _money(unit: Unit) -> bool:
    return unit.dimension.startswith("money:")


def _verdict(same: bool | None, why: str) -> Conflict | None:
    if same is None:
        return ("ambiguous", f"{why}: a unit of several sizes")
    return None if same else ("different", why)
