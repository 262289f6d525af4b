"""One case of a custom suite, as the grader needs it, and its round trip through
`Sample.metadata` (a mapping of strings: structures are stored as JSON text).

Everything grading needs travels with the stored sample, so `proctor score RUN` re-grades a suite
run from the run store alone, even after the suite file has changed or moved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

Kind = Literal["extraction", "summary", "rewrite", "refusal"]
KINDS: tuple[Kind, ...] = get_args(Kind)
Lang = Literal["zh", "en"]

_JSON_KEYS = (
    "expected",
    "match",
    "conflicts",
    "points",
    "forbidden",
    "constraints",
    "phrases",
    "allowed",
)
_TEXT_KEYS = ("kind", "lang", "material", "question", "system", "reference", "notes", "source")


def as_kind(value: str) -> Kind | None:
    for kind in KINDS:
        if value == kind:
            return kind
    return None


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class CaseSpec:
    """A case's grading data. Fields a kind does not use stay empty."""

    kind: Kind
    lang: Lang
    question: str
    material: str = ""
    system: str = ""
    reference: str = ""
    """The standard answer in words (for the judge and the report)."""
    notes: str = ""
    """The basis for judgement ("标准答案 + 判定依据"), shown to the judge and in reports."""
    source: str = ""
    """file:line of the case."""
    expected: Any = None
    """Extraction: the expected JSON object."""
    match: Mapping[str, str] = field(default_factory=dict)
    """Extraction: key → match mode, "*" for the rest."""
    conflicts: Mapping[str, list[str]] = field(default_factory=dict)
    """Extraction: key → known wrong values."""
    points: list[list[str]] = field(default_factory=list)
    """Summary: required points, each a list of synonyms."""
    forbidden: list[list[str]] = field(default_factory=list)
    """Summary: forbidden points; rewrite: forbidden words; refusal: invented facts."""
    constraints: Mapping[str, Any] = field(default_factory=dict)
    """Rewrite: max_sentence, max_length, min_length, required."""
    phrases: list[str] = field(default_factory=list)
    """Refusal: extra phrases that count as saying the material lacks the answer."""
    allowed: list[str] = field(default_factory=list)
    """Refusal: numbers the reply may give although the question does not."""

    def to_metadata(self) -> dict[str, str]:
        meta: dict[str, str] = {}
        for key in _TEXT_KEYS:
            value = getattr(self, key)
            if value:
                meta[key] = str(value)
        for key in _JSON_KEYS:
            value = getattr(self, key)
            if value is not None and value != [] and value != {}:
                meta[key] = _dumps(value)
        return meta

    @classmethod
    def from_metadata(cls, meta: Mapping[str, str]) -> CaseSpec:
        """The spec stored by `to_metadata`; ValueError when the metadata is not a suite case."""
        kind = as_kind(meta.get("kind", ""))
        if kind is None:
            raise ValueError(
                f"not a suite case: kind {meta.get('kind', '')!r} is not one of {', '.join(KINDS)}"
            )
        lang = meta.get("lang", "en")
        loaded: dict[str, Any] = {k: json.loads(meta[k]) for k in _JSON_KEYS if k in meta}
        return cls(
            kind=kind,
            lang="zh" if lang == "zh" else "en",
            question=meta.get("question", ""),
            material=meta.get("material", ""),
            system=meta.get("system", ""),
            reference=meta.get("reference", ""),
            notes=meta.get("notes", ""),
            source=meta.get("source", ""),
            expected=loaded.get("expected"),
            match=loaded.get("match", {}),
            conflicts=loaded.get("conflicts", {}),
            points=loaded.get("points", []),
            forbidden=loaded.get("forbidden", []),
            constraints=loaded.get("constraints", {}),
            phrases=loaded.get("phrases", []),
            allowed=loaded.get("allowed", []),
        )


def prompt_text(spec: CaseSpec, prompt: str = "") -> str:
    """The user message: the case's own prompt, or its material and question."""
    if prompt:
        return prompt
    if not spec.material:
        return spec.question
    if spec.lang == "zh":
        return f"材料：\n{spec.material}\n\n问题：{spec.question}"
    return f"Material:\n{spec.material}\n\nQuestion: {spec.question}"
