"""Pure: facts read from a model's replies, kept as a graph (entity, attribute, value, turn), and
the check that a later reply does not contradict what the model said before.

Reading, one sentence a rule:
- a fact is the value after one of its rule's labels (or a pattern's group), read by
  `reading.read_value` (the shared number reader: units, scale words, number words, ranges);
- it belongs to the entity named last before it in the same sentence (the tree's `entities`),
  else to its rule's entity; a reading of an entity the tree has no such fact for is dropped;
- several values for one fact in one reply: the same value counts once; different values with
  a self-correction between them ("correction:", "I misspoke", "更正") are a contradiction within
  the turn and the last one stands; different values without one are ambiguous (unreadable).

Consistency, one sentence a rule:
- the first readable assertion of a fact is its reference; a later one contradicts it when its
  value differs by more than the fact's tolerance, when its range excludes the reference (or
  the reference's range excludes it), or when it is an explicit self-correction to a new value;
- a later value in a unit of another dimension or currency contradicts the reference (it is
  another statement); one the rules cannot read, or whose reading is ambiguous, is unscored
  for consistency with the reason, never counted as consistent;
- with no contradiction, the dialogue is consistent only if at least one restated fact was
  checked and none was unscored; otherwise consistency is unscored (None) with the reasons.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from proctor.dialogue.reading import Unreadable, UnreadableKind, Value, read_value
from proctor.dialogue.tree import DialogueTree, FactRule
from proctor.extract.normalize import normalize_text

SELF_CORRECTION = re.compile(
    r"\b(?:correction|corrected|I misspoke|I was wrong|my mistake|should have been|"
    r"should read|to correct)\b|更正|纠正|订正|说错|应为|有误",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？\n;；]")
_CLAUSE_END = re.compile(r"\n|[。；;！？!?]|\.(?=\s|$)|,\s|，|、")
WINDOW = 80
"""Characters after a label that may hold its value."""
SENTENCE_MAX = 400
"""Characters before a label searched for the entity it belongs to."""
MAX_READINGS = 50
"""Readings of one fact in one reply beyond which the rest are not read (a reply repeating a
label thousands of times is ambiguous already; reading every one would take quadratic time)."""


@dataclass(frozen=True)
class Fact:
    entity: str
    attribute: str
    value: str
    """As written in the reply."""
    turn: int
    stage: str
    quote: str
    read: Value | None = None
    """The value as read (None when unreadable)."""
    unreadable: str = ""
    """Why the value cannot be read ("" when it was)."""
    unreadable_kind: UnreadableKind | None = None
    """What kind of unreadable (see `reading.Unreadable`); None when it was read."""
    corrected_from: str = ""
    """The value this reply corrected itself from, when it did."""

    @property
    def key(self) -> str:
        return f"{self.entity}.{self.attribute}"

    @property
    def number(self) -> Fraction | None:
        return None if self.read is None else self.read.point

    def row(self) -> dict[str, object]:
        return {
            "entity": self.entity,
            "attribute": self.attribute,
            "value": self.value,
            "read": None if self.read is None else self.read.show(),
            "hedged": bool(self.read and self.read.hedged),
            "unreadable": self.unreadable,
            "turn": self.turn,
            "stage": self.stage,
            "quote": self.quote,
        }


@dataclass(frozen=True)
class Contradiction:
    earlier: Fact
    later: Fact
    why: str = ""

    def describe(self) -> str:
        said = f"{self.later.value!r} ({self.later.quote!r})"
        if self.earlier.turn == self.later.turn:
            return (
                f"{self.later.key}: turn {self.later.turn} ({self.later.stage}) corrects itself "
                f"from {self.earlier.value!r} to {said}"
            )
        why = f"; {self.why}" if self.why else ""
        return (
            f"{self.later.key}: turn {self.later.turn} ({self.later.stage}) says {said} but turn "
            f"{self.earlier.turn} ({self.earlier.stage}) said {self.earlier.value!r} "
            f"({self.earlier.quote!r}){why}"
        )


def _quote(text: str, start: int, end: int, pad: int = 30) -> str:
    return " ".join(text[max(0, start - pad) : end + pad].split())


def _spelled(label: str) -> str:
    """A label as a regex: any white space between its words; whole words at a Latin edge
    (Chinese is written without spaces, so a CJK edge needs no boundary)."""
    body = r"\s*".join(map(re.escape, label.split()))
    start = r"(?<![^\W\d_])" if label[:1].isascii() and label[:1].isalnum() else ""
    end = r"(?![^\W\d_])" if label[-1:].isascii() and label[-1:].isalnum() else ""
    return f"{start}{body}{end}"


def _label_pattern(labels: Sequence[str]) -> re.Pattern[str]:
    spelled = "|".join(_spelled(label.strip()) for label in sorted(labels, key=len, reverse=True))
    return re.compile(rf"(?:{spelled})\s*(?:[:：=]|\bis\b|\bare\b|为|是)?\s*", re.IGNORECASE)


def _entity_before(text: str, at: int, names: Mapping[str, Sequence[str]]) -> str | None:
    """The entity named last before `at` in the same sentence, if any."""
    if not names:
        return None
    window = text[max(0, at - SENTENCE_MAX) : at]
    ends = list(_SENTENCE_END.finditer(window))
    sentence = window[ends[-1].end() :] if ends else window
    best: tuple[int, str] | None = None
    folded = sentence.casefold()
    for entity, spellings in names.items():
        for name in spellings:
            i = folded.rfind(name.casefold())
            if i >= 0 and (best is None or i > best[0]):
                best = (i, entity)
    return None if best is None else best[1]


@dataclass(frozen=True)
class _Reading:
    start: int
    end: int
    entity: str
    value: Value | Unreadable
    written: str
    label_end: int = -1
    """Where the label ends (-1 for a pattern's reading)."""


def _readings(
    reply: str, rule: FactRule, tree: DialogueTree, starts: Sequence[int]
) -> list[_Reading]:
    """Every reading of `rule` in `reply`; a label's value lies between it and the end of its
    clause or the next label of any fact (`starts`), whichever comes first."""
    found: list[_Reading] = []
    if rule.pattern is not None:
        for m in itertools.islice(re.finditer(rule.pattern, reply, re.IGNORECASE), MAX_READINGS):
            group = "value" if "value" in m.re.groupindex else 1
            raw = (m.group(group) or "").strip()
            entity = _entity_before(reply, m.start(), tree.entities) or rule.entity
            found.append(_Reading(m.start(), m.end(), entity, read_value(raw, rule), raw))
        return found
    for m in itertools.islice(_label_pattern(rule.labels).finditer(reply), MAX_READINGS):
        rest = reply[m.end() : m.end() + WINDOW]
        stop = _CLAUSE_END.search(rest)
        cut = min(
            [stop.start() if stop else len(rest)]
            + [s - m.end() for s in starts if m.end() <= s < m.end() + len(rest)]
        )
        window = rest[:cut]
        written = window.strip().rstrip(".,;:。，；：")
        entity = _entity_before(reply, m.start(), tree.entities) or rule.entity
        value = read_value(window, rule)
        found.append(_Reading(m.start(), m.end() + cut, entity, value, written, m.end()))
    return found


def _label_starts(reply: str, tree: DialogueTree) -> list[int]:
    return sorted(
        m.start()
        for rule in tree.facts
        if rule.labels
        for m in _label_pattern(rule.labels).finditer(reply)
    )


def _inside_a_longer_label(
    reading: _Reading, rule: FactRule, every: Sequence[tuple[FactRule, _Reading]]
) -> bool:
    """Whether another fact's label holds this one's ("预测产量" holds "产量")."""
    if reading.label_end < 0:
        return False
    return any(
        other is not rule
        and r.label_end >= 0
        and r.start <= reading.start
        and reading.label_end <= r.label_end
        and (r.start, r.label_end) != (reading.start, reading.label_end)
        for other, r in every
    )


def _same(a: Value, b: Value, tolerance: float) -> tuple[bool, str]:
    """Whether two values of one fact agree, and if not, how they differ."""
    if a.low is None or b.low is None or a.high is None or b.high is None:
        return _text(a.text) == _text(b.text), ""
    slack = Fraction(tolerance) * max(abs(a.low), abs(a.high), abs(b.low), abs(b.high))
    if a.high + slack < b.low or b.high + slack < a.low:
        if a.is_range or b.is_range:
            return False, "the range excludes the other value"
        return False, ""
    return True, ""


def _text(value: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize_text(value).lower())


def _fact(key: str, r: _Reading, reply: str, turn: int, stage: str, corrected: str) -> Fact:
    entity, attribute = key.split(".", 1)
    quote = _quote(reply, r.start, r.end)
    if isinstance(r.value, Unreadable):
        return Fact(
            entity,
            attribute,
            r.written,
            turn,
            stage,
            quote,
            None,
            r.value.why,
            r.value.kind,
            corrected_from=corrected,
        )
    return Fact(entity, attribute, r.written, turn, stage, quote, r.value, corrected_from=corrected)


def extract_facts(
    reply: str, tree: DialogueTree, turn: int, stage: str
) -> tuple[tuple[Fact, ...], tuple[Contradiction, ...]]:
    """The facts of one reply (one per key) and the self-corrections made within it."""
    facts: list[Fact] = []
    corrections: list[Contradiction] = []
    known = {r.key for r in tree.facts}
    by_key: dict[str, list[_Reading]] = {}
    starts = _label_starts(reply, tree)
    every = [(rule, r) for rule in tree.facts for r in _readings(reply, rule, tree, starts)]
    for rule, reading in every:
        key = f"{reading.entity}.{rule.attribute}"
        if key in known and not _inside_a_longer_label(reading, rule, every):
            by_key.setdefault(key, []).append(reading)
    for key, readings in by_key.items():
        entity, attribute = key.split(".", 1)
        readings.sort(key=lambda r: r.start)
        good = [r for r in readings if isinstance(r.value, Value)]

        if not good:
            facts.append(_fact(key, readings[0], reply, turn, stage, ""))
            continue
        distinct = [good[0]]
        for r in good[1:]:
            assert isinstance(r.value, Value) and isinstance(distinct[-1].value, Value)
            if not _same(distinct[-1].value, r.value, tree.tolerance(key))[0]:
                distinct.append(r)
        if len(distinct) == 1:
            facts.append(_fact(key, distinct[0], reply, turn, stage, ""))
            continue
        first, last = distinct[0], distinct[-1]
        if SELF_CORRECTION.search(reply, first.end, last.start + 1):
            earlier = _fact(key, first, reply, turn, stage, "")
            later = _fact(key, last, reply, turn, stage, first.written)
            corrections.append(Contradiction(earlier, later, "an explicit self-correction"))
            facts.append(later)
            continue
        values = ", ".join(r.written for r in distinct)
        why = f"the reply gives {len(distinct)} different values for {key}: {values}"
        facts.append(
            Fact(
                entity,
                attribute,
                values,
                turn,
                stage,
                _quote(reply, first.start, last.end),
                None,
                why,
                unreadable_kind="ambiguous",
            )
        )
    return tuple(facts), tuple(corrections)


@dataclass(frozen=True)
class Unscored:
    fact: Fact
    why: str

    def describe(self) -> str:
        return (
            f"{self.fact.key}: turn {self.fact.turn} ({self.fact.stage}) cannot be checked: "
            f"{self.why}"
        )


@dataclass
class FactGraph:
    """Every fact asserted so far, in order; the first readable assertion of a key is its
    reference."""

    tree: DialogueTree
    facts: list[Fact] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    unscored: list[Unscored] = field(default_factory=list)
    confirmations: int = 0
    """Later assertions that agreed with the reference."""

    def first(self, key: str) -> Fact | None:
        """The reference of `key`: its first readable assertion (else its first one)."""
        readable = next((f for f in self.facts if f.key == key and f.read is not None), None)
        return readable or next((f for f in self.facts if f.key == key), None)

    def add(
        self, new: Sequence[Fact], corrections: Sequence[Contradiction] = ()
    ) -> tuple[Contradiction, ...]:
        """Record the facts of one turn; the contradictions they make (with earlier turns, and
        the turn's own self-corrections)."""
        made: list[Contradiction] = []
        for fact in new:
            ref = self.first(fact.key)
            if ref is not None and ref.turn != fact.turn:
                if fact.read is None and fact.unreadable_kind == "other_unit" and ref.read:
                    made.append(Contradiction(ref, fact, fact.unreadable))
                elif fact.read is None:
                    self.unscored.append(Unscored(fact, fact.unreadable))
                elif ref.read is None:
                    self.unscored.append(Unscored(ref, ref.unreadable))
                else:
                    same, why = _same(ref.read, fact.read, self.tree.tolerance(fact.key))
                    if same and not fact.corrected_from:
                        self.confirmations += 1
                    elif same:
                        pass  # back to the reference after a wrong value: see corrections
                    else:
                        made.append(Contradiction(ref, fact, why))
            self.facts.append(fact)
        # one contradiction a turn and fact: a correction to a value that differs from the
        # reference is that difference; one back to the reference is still a self-contradiction
        differs = {c.later.key for c in made}
        made += [c for c in corrections if c.later.key not in differs]
        self.contradictions.extend(made)
        return tuple(made)

    @property
    def consistency(self) -> float | None:
        """Share of checked restatements that agree with the reference; None (unscored) when
        nothing could be checked or a restatement could not be read (see `why_unscored`)."""
        checked = self.confirmations + len(self.contradictions)
        if self.contradictions:
            return self.confirmations / checked
        if self.unscored or checked == 0:
            return None
        return 1.0

    @property
    def why_unscored(self) -> tuple[str, ...]:
        if self.consistency is not None:
            return ()
        if self.unscored:
            return tuple(u.describe() for u in self.unscored)
        return ("no fact was stated twice, so no restatement could be checked",)
