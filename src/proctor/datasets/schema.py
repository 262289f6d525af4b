"""One sample record at the file edge: checked with pydantic, and every problem raised as a
DatasetError naming the file, the 1-based line and the field."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proctor.errors import DatasetError
from proctor.types import AnswerType, Sample

__all__ = ["FIELDS", "infer_answer_type", "to_sample"]

FIELDS = ("id", "input", "target", "category", "difficulty", "answer_type", "decimals", "metadata")
"""The record's keys, in the order they are written."""

_ANSWER_TYPES: dict[str, AnswerType] = {t: t for t in get_args(AnswerType)}
_DIFFICULTIES = ("easy", "medium", "hard")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?[0-9]+(?:\.([0-9]+))?")
_FRACTION = re.compile(r"[+-]?[0-9]+/0*[1-9][0-9]*")
_COMPARISON = ("<", ">", "=")
_VALID: dict[str, tuple[re.Pattern[str], ...]] = {
    "integer": (_INTEGER,),
    "decimal": (_DECIMAL,),
    "fraction": (_FRACTION, _INTEGER),
    "comparison": (re.compile(r"[<>=]"),),
}
_EXPECTED = {"decimals": "an integer", "metadata": "an object"}


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str
    input: str
    target: str
    category: str | None = None
    difficulty: str | None = None
    answer_type: str | None = None
    decimals: int | None = None
    metadata: dict[str, Any] | None = Field(default=None)


def to_sample(raw: dict[str, Any], file: str, line: int) -> Sample:
    """The Sample a raw record describes: required id, input, target (non-blank strings); optional
    category, difficulty (easy/medium/hard), answer_type (inferred from the target when
    absent), decimals (for decimals only) and metadata (an object; non-string values are kept
    as JSON text)."""
    try:
        rec = _Record.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise DatasetError(file, line, field, _explain(err, field)) from None
    for name in ("id", "input", "target"):
        if not getattr(rec, name).strip():
            raise DatasetError(file, line, name, f"empty {name}")
    difficulty = rec.difficulty or ""
    if difficulty and difficulty not in _DIFFICULTIES:
        raise DatasetError(
            file, line, "difficulty", f"must be easy, medium or hard, got {difficulty!r}"
        )
    answer_type, decimals, target = _typed_target(rec, file, line)
    metadata = {
        k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        for k, v in (rec.metadata or {}).items()
    }
    return Sample(
        id=rec.id,
        input=rec.input,
        target=target,
        category=rec.category or "",
        difficulty=difficulty,
        answer_type=answer_type,
        decimals=decimals,
        metadata=metadata,
    )


def _explain(err: Any, field: str) -> str:
    kind = str(err["type"])
    if kind == "missing":
        return "missing required field"
    if kind == "extra_forbidden":
        return "unknown field (put extra data under 'metadata')"
    if kind.endswith("_type"):
        expected = _EXPECTED.get(field, "a string")
        return f"must be {expected}, got {_json_type(err.get('input'))}"
    return str(err["msg"])


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a string ({value!r})" if isinstance(value, str) else type(value).__name__


def infer_answer_type(target: str) -> tuple[AnswerType, int | None]:
    """integer for "42", decimal for "12.50" (decimals = digits after the point), fraction for
    "p/q", comparison for < > =, else text."""
    t = target.strip()
    if _INTEGER.fullmatch(t):
        return "integer", None
    m = _DECIMAL.fullmatch(t)
    if m:
        return "decimal", len(m.group(1))
    if _FRACTION.fullmatch(t):
        return "fraction", None
    if t in _COMPARISON:
        return "comparison", None
    return "text", None


def _typed_target(rec: _Record, file: str, line: int) -> tuple[AnswerType, int | None, str]:
    """(answer_type, decimals, target) checked against each other; a typed target is stripped."""
    given = rec.answer_type
    if not given:
        given = infer_answer_type(rec.target)[0]
        if given == "integer" and rec.decimals is not None:
            given = "decimal"
    answer_type = _ANSWER_TYPES.get(given)
    if answer_type is None:
        raise DatasetError(
            file,
            line,
            "answer_type",
            f"unknown answer_type {given!r} (use {', '.join(_ANSWER_TYPES)})",
        )
    if rec.decimals is not None and answer_type != "decimal":
        raise DatasetError(
            file, line, "decimals", f"only a decimal answer has decimals, not {answer_type}"
        )
    if rec.decimals is not None and rec.decimals < 0:
        raise DatasetError(file, line, "decimals", f"must be 0 or more, got {rec.decimals}")
    if answer_type == "text":
        return "text", None, rec.target
    target = rec.target.strip()
    if not any(p.fullmatch(target) for p in _VALID[answer_type]):
        raise DatasetError(
            file, line, "target", f"{rec.target!r} is not a valid {answer_type} answer"
        )
    if answer_type != "decimal":
        return answer_type, None, target
    places = len(target.partition(".")[2])
    if rec.decimals is not None and rec.decimals != places:
        raise DatasetError(
            file,
            line,
            "decimals",
            f"is {rec.decimals} but target {target!r} has {places} digits after the point",
        )
    return "decimal", places, target
