"""Pure: a structured answer `{answer, confidence_score, source_citation, valid_until}` → three
axes (calibration, timeliness, traceability), a weighted total, and one attribution line for
every point lost.

Decisions, stated once:
- The reply is read strictly (`read_json_reply`): one JSON object, optionally in one code fence.
  Nothing is repaired. A fence is accepted and noted; text around the object, a key written twice
  or any schema failure makes the item invalid: every axis and the total score 0, and the reason
  says which field failed and why.
- Schema (pydantic, strict types, no extra fields): `answer` a non-empty string (a JSON number is
  accepted as its decimal spelling, a boolean is not); `confidence_score` a number in [0, 1];
  `source_citation` a non-empty list of non-empty strings; `valid_until` an ISO 8601 date or
  date-time, or the word FOREVER.
- Days between the question time and `valid_until` are counted in calendar days (UTC dates).
- The `answer` is read as words: a numeric expected answer is compared by the one quantity
  reader (`proctor.extract.quantity_match`), units, scale words, Chinese numerals, percent and
  hedges and all, against the item's contract (its `unit`, optional `tolerance` absolute in that
  unit and `rel_tolerance`); an item that states no unit takes the unit its question states
  explicitly ("…, in tonnes?", "…是多少亿元？"), else the answer's unit is not checked. An answer
  the reader cannot read one way (several values, "1,23", "tons", "$12.4" for billions) is
  `unscored` with the reason, and left out of the calibration and every mean.
- This is not the team suites' JSON-field rule (`score/extraction.py`): there a field the case
  declares a number must be a JSON number, so "299元" is a string and wrong — a contract about
  JSON types. Here the answer field is a string by the protocol, and "299元" is 299 yuan.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from types import UnionType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proctor.errors import ConfigError
from proctor.extract.json_reply import read_json_reply
from proctor.extract.normalize import normalize_text
from proctor.extract.quantity_match import (
    QUANTITY_RULES,
    QuantityMatch,
    Verdict,
    expected_quantity,
    grade_answer,
    unit_asked,
)

FOREVER = "FOREVER"
DEFAULT_WEIGHTS: Mapping[str, float] = {"calibration": 0.4, "timeliness": 0.3, "traceability": 0.3}
DEFAULT_FOREVER_DISCOUNT = 0.2
AXES = ("calibration", "timeliness", "traceability")

Axis = Literal["calibration", "timeliness", "traceability"]

RULES: dict[str, str] = {
    "structured_schema": (
        "The reply must be exactly one JSON object {answer, confidence_score, source_citation, "
        "valid_until} with valid types, confidence in [0, 1], at least one non-empty citation and "
        "valid_until an ISO 8601 date or FOREVER; otherwise every axis scores 0."
    ),
    "calibration": "Calibration is 1 − |confidence − correct|, where correct is 1 for a right "
    "answer and 0 for a wrong one.",
    "timeliness": "Timeliness is max(0, 1 − days(question_time, valid_until)/365), 0 when "
    "valid_until precedes the question time, and FOREVER scores 1 less a discount (default 20 %) "
    "on a time-sensitive item.",
    "traceability": "Traceability is half the mean citation credit (a locator such as page, "
    "section, table or row: 1; a bare URL: 0.5; anything else: 0), a quarter for citing at least "
    "two sources and a quarter for one citation naming the exact data point.",
    "structured_total": "The total is the weighted sum of the three axes (default 0.4 "
    "calibration, 0.3 timeliness, 0.3 traceability).",
    "answer_text": "A text expected answer matches when the answer equals it (or one of its "
    "aliases) after normalisation (case, width, spaces and punctuation).",
    **QUANTITY_RULES,
}


class StructuredAnswer(BaseModel):
    """The answer protocol, validated where the model's reply comes in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str = Field(min_length=1)
    confidence_score: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    source_citation: list[str] = Field(min_length=1)
    valid_until: str

    @field_validator("answer", mode="before")
    @classmethod
    def _answer(cls, v: Any) -> Any:
        if isinstance(v, bool):
            raise ValueError("must be a string, not a boolean")
        if isinstance(v, int | float):
            return str(v)
        if isinstance(v, str) and not v.strip():
            raise ValueError("must not be blank")
        return v

    @field_validator("confidence_score", mode="before")
    @classmethod
    def _confidence(cls, v: Any) -> Any:
        return _of_type(v, int | float, "a number")

    @field_validator("source_citation", mode="before")
    @classmethod
    def _citations(cls, v: Any) -> Any:
        for i, c in enumerate(_of_type(v, list, "an array of strings")):
            if not isinstance(c, str) or not c.strip():
                raise ValueError(f"citation {i} must be a non-empty string")
        return v

    @field_validator("valid_until", mode="before")
    @classmethod
    def _valid_until(cls, v: Any) -> Any:
        v = _of_type(v, str, "a string")
        if v.strip() == FOREVER:
            return FOREVER
        if parse_iso_date(v) is None:
            raise ValueError(f"must be an ISO 8601 date or FOREVER, got {v!r}")
        return v.strip()


def _of_type(v: Any, kind: type | UnionType, what: str) -> Any:
    """`v` when it is a `kind` (a boolean is no number); else "must be `what`, got TYPE"."""
    if isinstance(v, bool) or not isinstance(v, kind):
        raise ValueError(f"must be {what}, got {type(v).__name__}")
    return v


ANSWER_FIELDS: tuple[str, ...] = tuple(StructuredAnswer.model_fields)
"""The keys of a structured answer, in order: what the task's description (`proctor list
tasks`) names, read from the one model that validates replies."""


def parse_iso_date(text: str) -> date | None:
    """The UTC calendar date of an ISO 8601 date or date-time, or None when it is not one."""
    s = text.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        if len(s) == 10:
            return date.fromisoformat(s)
        moment = datetime.fromisoformat(s)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date()


@dataclass(frozen=True)
class ParsedAnswer:
    """The validated answer, or why there is none; `notes` say what was accepted but unusual."""

    answer: StructuredAnswer | None
    error: str = ""
    notes: tuple[str, ...] = ()


def parse_structured(text: str) -> ParsedAnswer:
    """Read a reply as the answer protocol; never repairs, always says why it failed."""
    reply = read_json_reply(text)
    if reply.value is None:
        return ParsedAnswer(None, f"invalid JSON: {reply.error}")
    notes = ("the JSON was inside a code fence (accepted as formatting)",) if reply.fenced else ()
    if reply.duplicates:
        keys = ", ".join(k for k, _ in reply.duplicates)
        return ParsedAnswer(None, f"schema: key written more than once: {keys}", notes)
    try:
        return ParsedAnswer(StructuredAnswer.model_validate(reply.value), "", notes)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"]) or "object"
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {msg}")
        return ParsedAnswer(None, "schema: " + "; ".join(problems), notes)


@dataclass(frozen=True)
class AxisScore:
    axis: Axis
    value: float
    lost: tuple[str, ...] = ()
    """One line per reason a point was lost (empty when the axis scored 1)."""


@dataclass(frozen=True)
class Calibration:
    """Calibration is 1 − |confidence − correct|, where correct is 1 for a right answer and 0 for
    a wrong one."""

    def score(self, confidence: float, correct: bool) -> AxisScore:
        target = 1.0 if correct else 0.0
        value = 1.0 - abs(confidence - target)
        if value >= 1.0:
            return AxisScore("calibration", 1.0)
        why = (
            f"confidence {confidence:g} for a right answer (−{1 - value:.2f})"
            if correct
            else f"confidence {confidence:g} for a wrong answer (−{1 - value:.2f})"
        )
        return AxisScore("calibration", value, (why,))


@dataclass(frozen=True)
class Timeliness:
    """Timeliness is max(0, 1 − days(question_time, valid_until)/365), 0 when valid_until
    precedes the question time, and FOREVER scores 1 less a discount on a time-sensitive item."""

    forever_discount: float = DEFAULT_FOREVER_DISCOUNT

    def score(self, question_time: date, valid_until: str, time_sensitive: bool) -> AxisScore:
        if valid_until == FOREVER:
            if not time_sensitive:
                return AxisScore("timeliness", 1.0)
            value = 1.0 - self.forever_discount
            why = (
                f"valid_until FOREVER on a time-sensitive item "
                f"(−{self.forever_discount:.2f} discount)"
            )
            return AxisScore("timeliness", value, (why,) if value < 1.0 else ())
        until = parse_iso_date(valid_until)
        if until is None:
            return AxisScore("timeliness", 0.0, (f"valid_until {valid_until!r} is not a date",))
        days = (until - question_time).days
        if days < 0:
            return AxisScore(
                "timeliness",
                0.0,
                (
                    f"valid_until {until.isoformat()} precedes the question time "
                    f"{question_time.isoformat()} (−1.00)",
                ),
            )
        value = max(0.0, 1.0 - days / 365)
        if value >= 1.0:
            return AxisScore("timeliness", 1.0)
        why = (
            f"valid_until {until.isoformat()} is {days} days after the question time "
            f"{question_time.isoformat()} (−{1 - value:.2f})"
        )
        return AxisScore("timeliness", value, (why,))


_LOCATOR_WORDS = (
    r"paragraph|para|pages|page|pp|p|section|sec|chapter|ch|table|tbl|tab|rows|row|columns|column|"
    r"col|cell|line|clause|article|art|figure|fig|appendix|item|slide|sheet"
)
_LOCATOR = re.compile(
    rf"(?<![A-Za-z])(?:{_LOCATOR_WORDS})(?![A-Za-z])[\s_.\-:#=]*[A-Za-z]?\d+"
    r"|§\s*\d+"
    r"|第\s*[\d一二三四五六七八九十百]+\s*[页頁章节節条條款段行列项項]"
    r"|[表图圖附]\s*[\d一二三四五六七八九十]+"
    r"|\d+\s*[页頁]",
    re.IGNORECASE,
)
_FINE_LOCATOR = re.compile(
    r"(?<![A-Za-z])(?:rows?|cell|line|paragraph|para|clause|item)(?![A-Za-z])[\s_.\-:#=]*\d+"
    r"|第\s*[\d一二三四五六七八九十百]+\s*[行段款项項]",
    re.IGNORECASE,
)
_URL = re.compile(r"^(?:https?://|www\.)\S+$|^(?:WEB_)?URL[_:]", re.IGNORECASE)


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


@dataclass(frozen=True)
class Traceability:
    """Traceability is half the mean citation credit (a locator such as page, section, table or
    row: 1; a bare URL: 0.5; anything else: 0), a quarter for citing at least two sources and a
    quarter for one citation naming the exact data point."""

    def citation_credit(self, citation: str) -> tuple[float, str]:
        """(credit, kind) of one citation: kind is "locator", "bare URL" or "no locator"."""
        if _LOCATOR.search(citation):
            return 1.0, "locator"
        if _URL.search(citation.strip()):
            return 0.5, "bare URL"
        return 0.0, "no locator"

    def names_data_point(self, citation: str, data_point: Sequence[str]) -> bool:
        """With the item's data-point tokens: the citation contains one (ignoring case and
        punctuation); without: it has a fine locator (row, cell, line, paragraph, clause) or at
        least two locators (e.g. table and page)."""
        if data_point:
            squashed = _squash(citation)
            return any(_squash(t) and _squash(t) in squashed for t in data_point)
        return bool(_FINE_LOCATOR.search(citation)) or len(_LOCATOR.findall(citation)) >= 2

    def score(self, citations: Sequence[str], data_point: Sequence[str] = ()) -> AxisScore:
        lost: list[str] = []
        credits = []
        for c in citations:
            credit, kind = self.citation_credit(c)
            credits.append(credit)
            if credit < 1.0:
                share = 0.5 * (1.0 - credit) / len(citations)
                lost.append(f"citation {c!r}: {kind}, credit {credit:g} (−{share:.3f})")
        value = 0.5 * (sum(credits) / len(credits)) if credits else 0.0
        if len(citations) >= 2:
            value += 0.25
        else:
            lost.append(f"{len(citations)} citation(s), at least two are required (−0.25)")
        if any(self.names_data_point(c, data_point) for c in citations):
            value += 0.25
        else:
            wanted = f" (one of {', '.join(data_point)})" if data_point else ""
            lost.append(f"no citation names the exact data point{wanted} (−0.25)")
        return AxisScore("traceability", value, tuple(lost))


def check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """The weights of the three axes, checked: each axis named once, none negative, sum 1."""
    if set(weights) != set(AXES):
        raise ConfigError(f"weights must name exactly {', '.join(AXES)}; got {sorted(weights)}")
    if any(w < 0 or not math.isfinite(w) for w in weights.values()):
        raise ConfigError("weights must be finite and not negative")
    if abs(sum(weights.values()) - 1.0) > 1e-9:
        raise ConfigError(f"weights must sum to 1, got {sum(weights.values()):g}")
    return {a: float(weights[a]) for a in AXES}


def grade_structured_answer(answer: str, item: StructuredItem) -> QuantityMatch:
    """The answer field against the item: as a quantity when the expected answer is one (right
    when it matches the expected value or an alias, else unscored when a reading is ambiguous,
    else wrong), as normalised text otherwise."""
    unit = item.unit or unit_asked(item.question)
    expected = expected_quantity(item.expected, unit, item.tolerance, item.rel_tolerance)
    if expected is None:
        norm = _text_key(answer)
        right = any(norm == _text_key(t) for t in (item.expected, *item.aliases))
        verdict: Verdict = "correct" if right else "wrong"
        return QuantityMatch(verdict, "answer_text", f"{'equal' if right else 'not equal'} "
                             "after normalisation")  # fmt: skip
    grades = [grade_answer(answer, expected)]
    for alias in item.aliases:
        other = expected_quantity(alias, unit, item.tolerance, item.rel_tolerance)
        if other is not None:
            grades.append(grade_answer(answer, other))
    for verdict in ("correct", "unscored"):
        found = next((g for g in grades if g.verdict == verdict), None)
        if found is not None:
            return found
    return grades[0]


def _text_key(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize_text(text).lower())


@dataclass(frozen=True)
class StructuredItem:
    """What grading one item needs besides the reply."""

    expected: str
    question_time: date
    time_sensitive: bool
    aliases: tuple[str, ...] = ()
    data_point: tuple[str, ...] = ()
    unit: str = ""
    """The item's contract: the unit (with its scale: "亿元", "billion US dollars") the expected
    answer is in; "" takes the unit the question states, if it states one."""
    tolerance: float | None = None
    """Absolute, in `unit`: a value this close to the expected one is right."""
    rel_tolerance: float | None = None
    question: str = ""


@dataclass(frozen=True)
class StructuredScore:
    """The grade of one structured answer. `valid` False: `reason` says why, every axis is 0."""

    valid: bool
    reason: str
    correct: bool
    confidence: float | None
    axes: tuple[AxisScore, ...]
    total: float
    attribution: tuple[str, ...]
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    answer: str | None = None
    notes: tuple[str, ...] = ()
    verdict: Verdict = "wrong"
    rule: str = "structured_schema"

    @property
    def scored(self) -> bool:
        """A valid reply whose answer could be graded (not unscored)."""
        return self.valid and self.verdict != "unscored"

    def axis(self, name: Axis) -> float:
        for a in self.axes:
            if a.axis == name:
                return a.value
        return 0.0


@dataclass(frozen=True)
class StructuredScorer:
    """The weighted total of the three axes, with an attribution line per point lost."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    forever_discount: float = DEFAULT_FOREVER_DISCOUNT

    def score_text(self, text: str, item: StructuredItem) -> StructuredScore:
        weights = check_weights(self.weights)
        parsed = parse_structured(text)
        if parsed.answer is None:
            zero = tuple(AxisScore(a, 0.0) for a in AXES)  # type: ignore[arg-type]
            return StructuredScore(
                False,
                parsed.error,
                False,
                None,
                zero,
                0.0,
                (f"all axes 0: {parsed.error} [structured_schema]",),
                weights,
                notes=parsed.notes,
            )
        return self.score_answer(parsed.answer, item, weights, parsed.notes)

    def score_answer(
        self,
        ans: StructuredAnswer,
        item: StructuredItem,
        weights: Mapping[str, float] | None = None,
        notes: tuple[str, ...] = (),
    ) -> StructuredScore:
        w = check_weights(weights if weights is not None else self.weights)
        graded = grade_structured_answer(ans.answer, item)
        correct = graded.verdict == "correct"
        calibration = (
            Calibration().score(ans.confidence_score, correct)
            if graded.verdict != "unscored"
            else AxisScore("calibration", 0.0, ("not scored: the answer could not be graded",))
        )
        axes = (
            calibration,
            Timeliness(self.forever_discount).score(
                item.question_time, ans.valid_until, item.time_sensitive
            ),
            Traceability().score(ans.source_citation, item.data_point),
        )
        total = sum(w[a.axis] * a.value for a in axes)
        lines: list[str] = []
        for a in axes:
            if not a.lost:
                continue
            lines.append(
                f"{a.axis} {a.value:.2f} × {w[a.axis]:g} (−{w[a.axis] * (1 - a.value):.3f} of "
                f"the total) [{a.axis}]"
            )
            lines.extend(f"  {a.axis}: {why}" for why in a.lost)
        said = {"correct": "right", "wrong": "wrong", "unscored": "unscored"}[graded.verdict]
        reason = (
            f"answer {ans.answer!r} is {said} (expected {item.expected!r}"
            f"{' in ' + item.unit if item.unit else ''}): {graded.reason} [{graded.rule}]"
        )
        return StructuredScore(
            True, reason, correct, ans.confidence_score, axes, total, tuple(lines), w,
            ans.answer, notes, graded.verdict, graded.rule,
        )  # fmt: skip
