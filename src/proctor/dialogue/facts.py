"""Pure: facts read from a model's replies, kept as a graph (entity, attribute, value, turn), and
the check that a later reply does not contradict what the model said before.

A contradiction is a later assertion of the same entity and attribute with a different value:
numbers differ by more than the tree's relative tolerance, texts differ after normalisation.
The first assertion stays the reference; every contradiction names both turns and both quotes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from proctor.dialogue.tree import FactRule
from proctor.extract.normalize import normalize_text, parse_number


@dataclass(frozen=True)
class Fact:
    entity: str
    attribute: str
    value: str
    """As written in the reply."""
    number: Fraction | None
    turn: int
    stage: str
    quote: str

    @property
    def key(self) -> str:
        return f"{self.entity}.{self.attribute}"


@dataclass(frozen=True)
class Contradiction:
    earlier: Fact
    later: Fact

    def describe(self) -> str:
        return (
            f"{self.later.key}: turn {self.later.turn} ({self.later.stage}) says "
            f"{self.later.value!r} ({self.later.quote!r}) but turn {self.earlier.turn} "
            f"({self.earlier.stage}) said {self.earlier.value!r} ({self.earlier.quote!r})"
        )


def _quote(text: str, start: int, end: int, pad: int = 30) -> str:
    return " ".join(text[max(0, start - pad) : end + pad].split())


def extract_facts(reply: str, rules: Sequence[FactRule], turn: int, stage: str) -> tuple[Fact, ...]:
    """The first match of each rule in `reply` (numbers must read as one number)."""
    found: list[Fact] = []
    for rule in rules:
        m = re.search(rule.pattern, reply, re.IGNORECASE)
        if not m:
            continue
        group = "value" if "value" in m.re.groupindex else 1
        raw = (m.group(group) or "").strip().rstrip(".,;:。，；：")
        number = None
        if rule.kind == "number":
            token = parse_number(raw)
            if token is None:
                continue
            number = token.value
        elif not raw:
            continue
        found.append(
            Fact(rule.entity, rule.attribute, raw, number, turn, stage,
                 _quote(reply, m.start(), m.end()))
        )  # fmt: skip
    return tuple(found)


def _same(a: Fact, b: Fact, tolerance: float) -> bool:
    if a.number is not None and b.number is not None:
        if a.number == b.number:
            return True
        scale = max(abs(a.number), abs(b.number))
        return float(abs(a.number - b.number) / scale) <= tolerance
    return _text(a.value) == _text(b.value)


def _text(value: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize_text(value).lower())


@dataclass
class FactGraph:
    """Every fact asserted so far, in order; the first assertion of a key is its reference."""

    tolerance: float = 0.0
    facts: list[Fact] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    confirmations: int = 0
    """Later assertions that agreed with the reference."""

    def first(self, key: str) -> Fact | None:
        return next((f for f in self.facts if f.key == key), None)

    def add(self, new: Sequence[Fact]) -> tuple[Contradiction, ...]:
        """Record `new` facts; the contradictions they make with earlier turns."""
        made: list[Contradiction] = []
        for fact in new:
            ref = self.first(fact.key)
            if ref is not None and ref.turn != fact.turn:
                if _same(ref, fact, self.tolerance):
                    self.confirmations += 1
                else:
                    made.append(Contradiction(ref, fact))
            self.facts.append(fact)
        self.contradictions.extend(made)
        return tuple(made)

    @property
    def consistency(self) -> float:
        """Share of repeated assertions that agree with the first one; 1.0 when none repeat."""
        repeated = self.confirmations + len(self.contradictions)
        return 1.0 if repeated == 0 else self.confirmations / repeated
