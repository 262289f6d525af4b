"""The summary scorer: a checklist of points the reply must make, and points it must not.

A point is a list of synonyms. It is made when the reply states one of them the way the
material does: each mention (phrase matching of `proctor.extract.phrases`, numbers compared as
numbers in any format: "1,299 元", "¥1299", "$45.00", "forty-five dollars") has a stance
(`proctor.extract.claims`: asserted, negated, in a question, a condition, hedged, quoted), and
the stances that make the point are the ones its mentions have in the material, and asserted
unless the material only denies it. So "主管尚未批准退款" does not make the point "批准退款"
that the material asserts, while "不得进入五环" makes the point "五环" of a material that says
"不得进入五环路以内", and "whether to keep the old reporting views" the open question the
material asks. A forbidden point fails the reply only when asserted: "不是毛利率上升，而是…" and
"not three days" name it to deny it. Where the rules cannot decide — the only mentions are
hedged, quoted statements or double negations, or the reply both states the point and denies it
— the reply is `unscored`, with the reason and the clause, never silently correct: a judge (or a
person) decides. A point's number counts only where the reply says it of the metric the material
says it of, in the same part of a change and the same direction (`proctor.extract.attachment`):
"毛利率同比增长 18%" does not make the revenue's "18%", "退货率由 3% 变为 5%" not a fall to "3%";
numbers paired by order ("分别", "respectively") leave the point to the judge. `normalized`
records which points were found, so repeated replies that make the same points read the same
(consistency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from proctor.extract.attachment import placement
from proctor.extract.claims import NOT_ASSERTED, UNDECIDED, Mention, Reach, Stance, stance
from proctor.extract.phrases import find_point
from proctor.types import FinishReason, Score

RULES: dict[str, str] = {
    "points_missing": "Every required point must be asserted in the reply (any one of its"
    " synonyms; a mention under a negation, in a question, a condition or a quoted question"
    " does not count, nor a number said of another metric or in another change than in the"
    " material: 'margin grew 18%' for revenue growth, 'rose to 3%' for a fall to 3%).",
    "forbidden_point": "No forbidden point (e.g. a claim the material does not support) may be"
    " asserted in the reply; naming it to deny it is fine.",
    "truncated_summary": "The reply hit max_tokens before it made every required point.",
    "points_undecided": "A point is only hedged, quoted, doubly negated, or both asserted and"
    " denied: the rules cannot decide, so the reply is unscored (for the judge or a person).",
    "points_present": "Every required point is asserted and no forbidden one is.",
}

Point = Sequence[str]
"""One point: its synonyms; any one of them counts."""

Reading = Literal["asserted", "absent", "not_asserted", "undecided", "mixed", "misplaced"]

_WHY: dict[str, str] = {
    "asserted": "stated where the material denies it",
    "negated": "only under a negation",
    "double_negation": "only under a double negation",
    "question": "only in a question",
    "quoted_question": "only inside a quoted question",
    "conditional": "only in a condition",
    "hedged": "only hedged",
    "quoted": "only inside quoted speech",
}
_SHOWN = 40
_MENTIONS = 64
"""A point is read from its first mentions only: a reply that repeats it a thousand times says
nothing more about it, and grading stays fast on a runaway reply."""


def _label(point: Point) -> str:
    return " | ".join(point)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def mentions(text: str, point: Point, *, reach: Reach) -> list[Mention]:
    """Every mention of any synonym of `point` in `text` (numbers in any format), with its
    stance; overlapping mentions of two synonyms count once (the earlier, longer one)."""
    spans = sorted(
        {span for synonym in point for span in find_point(text, synonym)},
        key=lambda s: (s[0], -s[1]),
    )
    kept: list[tuple[int, int]] = []
    for a, b in spans:
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    return [stance(text, a, b, reach=reach) for a, b in kept[:_MENTIONS]]


@dataclass(frozen=True)
class PointReading:
    """What the reply does with one point, and the mention that shows it."""

    reading: Reading
    shown: Mention | None = None
    denied: Mention | None = None
    why: str = ""
    """Why a number of the point does not stand as in the material (misplaced, undecided)."""

    def describe(self, text: str) -> str:
        m = self.shown
        if m is None:
            return "not found"
        said = repr(_short(text[m.start : m.end]))
        if self.why:
            return f"stated as {said}, but {self.why}"
        if self.reading == "asserted":
            as_material = (
                f" ({_WHY[m.stance]}, as in the material)" if m.stance != "asserted" else ""
            )
            return f"stated: {said}{as_material}"
        if self.reading == "mixed" and self.denied is not None:
            return (
                f"both stated ({said}) and contradicted ({self.denied.cue!r} in"
                f" {_short(self.denied.clause)!r})"
            )
        if m.stance == "asserted":
            return f"{said} {_WHY['asserted']}"
        return f"{said} {_WHY[m.stance]} ({m.cue!r} in {_short(m.clause)!r})"


_ASSERTED: frozenset[Stance] = frozenset({"asserted"})
_OPPOSITE: dict[Stance, frozenset[Stance]] = {
    "asserted": frozenset({"negated", "double_negation"}),
    "negated": frozenset({"asserted"}),
}


_DENIED: frozenset[Stance] = frozenset({"negated", "double_negation"})
_NONE: frozenset[Stance] = frozenset()


def expected_stances(material: str, point: Point) -> frozenset[Stance]:
    """The stances that make `point`: those it has in `material`, and asserted unless the
    material only denies it (asserting what it asks, hedges or quotes is making the point)."""
    found = frozenset(
        m.stance for m in (mentions(material, point, reach="clause") if material else [])
    )
    if found and found <= _DENIED:
        return frozenset(found)
    return _ASSERTED | found


def _placed(
    text: str, found: list[Mention], point: Point, material: str
) -> tuple[list[Mention], list[tuple[Mention, str]], list[tuple[Mention, str]]]:
    """`found` split by how a number of the point stands against the material
    (`proctor.extract.attachment`): the mentions that stand as there, the misplaced ones and
    the unclear ones, each with why."""
    kept: list[Mention] = []
    misplaced: list[tuple[Mention, str]] = []
    unclear: list[tuple[Mention, str]] = []
    for m in found:
        verdicts = [placement(text, m.start, m.end, s, material) for s in point]
        bad = next((v for v in verdicts if v[0] == "misplaced"), None)
        if bad is not None:
            misplaced.append((m, bad[1]))
        elif (open_ := next((v for v in verdicts if v[0] == "unclear"), None)) is not None:
            unclear.append((m, open_[1]))
        else:
            kept.append(m)
    return kept, misplaced, unclear


def read_point(
    text: str,
    point: Point,
    *,
    reach: Reach,
    expected: frozenset[Stance] = _ASSERTED,
    material: str = "",
) -> PointReading:
    """What `text` does with `point`: states it with an `expected` stance (asserted), also
    contradicts that (mixed), only hedges or quotes it (undecided), only mentions it otherwise
    (not_asserted), only states its number on another metric or in another change than the
    `material` does (misplaced), or never mentions it (absent)."""
    found, misplaced, unclear = _placed(text, mentions(text, point, reach=reach), point, material)
    made = [m for m in found if m.stance in expected]
    if not made:
        if open_ := [(m, why) for m, why in unclear if m.stance in expected]:
            return PointReading("undecided", open_[0][0], why=open_[0][1])
        if wrong := [(m, why) for m, why in misplaced if m.stance in expected]:
            return PointReading("misplaced", wrong[0][0], why=wrong[0][1])
        found += [m for m, _ in misplaced + unclear]
    opposite = frozenset().union(*(_OPPOSITE.get(s, frozenset()) for s in expected)) - expected
    contrary = [m for m in found if m.stance in opposite]
    if made and contrary:
        return PointReading("mixed", made[0], contrary[0])
    if made:
        return PointReading("asserted", made[0])
    undecided = [m for m in found if m.stance in UNDECIDED]
    if undecided:
        return PointReading("undecided", undecided[0])
    if contrary:
        return PointReading("not_asserted", contrary[0])
    not_asserted = [m for m in found if m.stance in NOT_ASSERTED]
    if not_asserted:
        return PointReading("not_asserted", not_asserted[0])
    return PointReading("absent")


@dataclass(frozen=True)
class RequiredPoints:
    """Every required point must be asserted in the reply (any one of its synonyms) and no
    forbidden point may be; a hedged, quoted or contradicted point leaves the reply unscored."""

    required: Sequence[Point]
    forbidden: Sequence[Point] = ()
    material: str = ""
    """The case's material: how it states each point is how the reply must."""

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        required = [
            read_point(
                text,
                p,
                reach="clause",
                expected=expected_stances(self.material, p),
                material=self.material,
            )
            for p in self.required
        ]
        forbidden = [read_point(text, p, reach="near") for p in self.forbidden]
        made = [i for i, r in enumerate(required) if r.reading == "asserted"]
        gone = ("absent", "not_asserted", "misplaced")
        missing = [i for i, r in enumerate(required) if r.reading in gone]
        open_required = [i for i, r in enumerate(required) if r.reading in ("undecided", "mixed")]
        banned = [i for i, r in enumerate(forbidden) if r.reading == "asserted"]
        open_forbidden = [i for i, r in enumerate(forbidden) if r.reading in ("undecided", "mixed")]
        denied = [i for i, r in enumerate(forbidden) if r.reading == "not_asserted"]

        reading = "points " + (",".join(str(i + 1) for i in made) or "none")
        if open_required:
            reading += " undecided " + ",".join(str(i + 1) for i in open_required)
        if banned:
            reading += " forbidden " + ",".join(self.forbidden[i][0] for i in banned)
        summary = f"{len(made)}/{len(self.required)} required points"

        def req(i: int) -> str:
            return f"point {i + 1} {_label(self.required[i])!r} {required[i].describe(text)}"

        def forb(i: int) -> str:
            return f"forbidden {_label(self.forbidden[i])!r} {forbidden[i].describe(text)}"

        notes = [forb(i) for i in denied]
        rules: list[str] = []
        parts: list[str] = []
        if missing:
            rules.append("points_missing")
            parts += ["missing " + req(i) for i in missing]
        if banned:
            rules.append("forbidden_point")
            parts += ["says " + forb(i) for i in banned]
        if rules:
            if finish_reason == "length" and missing and not banned:
                return Score(
                    "truncated",
                    "truncated_summary",
                    f"cut off by max_tokens with {summary}: " + "; ".join(parts),
                    reading,
                    reading,
                )
            explanation = f"{summary}: " + "; ".join(parts + notes)
            return Score("wrong", "+".join(rules), explanation, reading, reading, format_ok=True)
        if open_required or open_forbidden:
            undecided = [req(i) for i in open_required] + [forb(i) for i in open_forbidden]
            explanation = f"{summary}, the rules cannot decide: " + "; ".join(undecided + notes)
            return Score("unscored", "points_undecided", explanation, reading, reading, True)
        shown = [
            f"{i + 1} {_short(text[m.start : m.end])!r}"
            for i, r in enumerate(required)
            if (m := r.shown) is not None
        ]
        explanation = f"{summary}: " + ", ".join(shown) + "".join(f"; {n}" for n in notes)
        return Score("correct", "points_present", explanation, reading, reading, format_ok=True)
