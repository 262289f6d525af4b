"""A judge's reply read (LLM-as-judge, stage two of four: prompt (`proctor.prompts.judge`),
verdict reading, judging (`proctor.runs.judge`), validation (`proctor.audit.judge_validation`)).

`proctor.runs.judge` stores every raw judge reply, so `proctor score` reads them again with the
functions here without calling anything.

- A judge reply is read leniently (the first JSON object in it, fenced or not) and validated
  strictly (pydantic: every field present, integers in range). A reply that fails is not given a
  default: the caller asks again with the error, a bounded number of times, and then stores it as
  `unscored` with the reason.
- Pairwise judging asks twice with the two answers swapped; a winner counts only when both
  orders agree, so a judge that prefers whatever comes first cancels out ("inconsistent").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proctor.extract.json_reply import first_json_object

_Shape = TypeVar("_Shape", bound=BaseModel)


class _Pointwise(BaseModel):
    model_config = ConfigDict(extra="ignore")

    score: int = Field(ge=1, le=10)
    correctness: int = Field(ge=0, le=10)
    completeness: int = Field(ge=0, le=10)
    reason: str = ""

    @field_validator("score", "correctness", "completeness", mode="before")
    @classmethod
    def _not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("a boolean is not a grade")
        return value


class _Pairwise(BaseModel):
    model_config = ConfigDict(extra="ignore")

    winner: Literal["1", "2", "tie"]
    reason: str = ""

    @field_validator("winner", mode="before")
    @classmethod
    def _spelling(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str):
            v = value.strip().lower().removeprefix("answer").strip().strip("_ ")
            return v
        return value


@dataclass(frozen=True)
class JudgeScore:
    """A valid pointwise verdict."""

    score: int
    correctness: int
    completeness: int
    reason: str


@dataclass(frozen=True)
class PairVerdict:
    """A valid pairwise verdict: the winner by position in the prompt that was asked."""

    winner: Literal["1", "2", "tie"]
    reason: str = ""


@dataclass(frozen=True)
class JudgeReading:
    """What a stored judge reply says: a verdict, or why it has none."""

    score: JudgeScore | None = None
    pair: PairVerdict | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.score is not None or self.pair is not None


def _errors(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        where = ".".join(str(p) for p in err["loc"]) or "verdict"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def _object(text: str) -> dict[str, Any] | str:
    found = first_json_object(text)
    if found is None:
        preview = " ".join(text.split())[:60]
        return f"no JSON object in the reply: {preview!r}" if preview else "the reply is empty"
    return found


def _read(
    text: str, shape: type[_Shape], reading: Callable[[_Shape], JudgeReading]
) -> JudgeReading:
    """The reply's JSON object validated as `shape` and read, or the reason it cannot be."""
    found = _object(text)
    if isinstance(found, str):
        return JudgeReading(error=found)
    try:
        v = shape.model_validate(found)
    except ValidationError as e:
        return JudgeReading(error=_errors(e))
    return reading(v)


def read_pointwise(text: str) -> JudgeReading:
    """The verdict in a pointwise judge reply, or the reason it has none."""
    return _read(
        text,
        _Pointwise,
        lambda v: JudgeReading(score=JudgeScore(v.score, v.correctness, v.completeness, v.reason)),
    )


def read_pairwise(text: str) -> JudgeReading:
    """The verdict in a pairwise judge reply, or the reason it has none."""
    return _read(text, _Pairwise, lambda v: JudgeReading(pair=PairVerdict(v.winner, v.reason)))


def read_replies(replies: Sequence[str], *, pairwise: bool) -> JudgeReading:
    """A stored judgement read again: the first reply (in the order asked) with a valid verdict
    under today's rules, else the last reply's error; no reply at all has none."""
    read = read_pairwise if pairwise else read_pointwise
    reading = JudgeReading(error="the judge gave no reply")
    for reply in replies:
        reading = read(reply)
        if reading.ok:
            return reading
    return reading


PairOutcome = Literal["a", "b", "tie", "inconsistent"]


def combine_pairwise(a_first: PairVerdict, b_first: PairVerdict) -> PairOutcome:
    """A's and B's result from the two orders: "a" when A won in both (as 1, then as 2), "b"
    likewise, "tie" when both say tie, else "inconsistent" (the verdict followed the position)."""
    if a_first.winner == "1" and b_first.winner == "2":
        return "a"
    if a_first.winner == "2" and b_first.winner == "1":
        return "b"
    if a_first.winner == "tie" and b_first.winner == "tie":
        return "tie"
    return "inconsistent"
