"""A suite file (CSV or JSONL) → checked cases → Samples for the `suite` task.

Columns (CSV header or JSONL keys); only id and kind are always required:

    id           unique, non-blank
    kind         extraction | summary | rewrite | refusal
    material     the text the case is about            ┐ either both (material may be empty)
    question     what is asked about it                ┘ or
    prompt       the whole user message, as is
    expected     extraction: the expected JSON object (required);
                 otherwise the standard answer in words (optional; the judge sees it)
    match        extraction: exact | contains, or per key: {"name": "contains", "*": "exact"}
                 or  name=contains; *=exact
    points       summary: required points (required), one per line or separated by ";" / "；",
                 synonyms separated by "|" / "｜"; or JSON [["12%", "百分之十二"], "华东"]
    forbidden    summary: forbidden points (same syntax); rewrite: forbidden words;
                 refusal: invented facts; extraction: known wrong values per key, JSON
                 {"负责人": ["李四"]}
    constraints  rewrite (required): JSON {"max_sentence": 25} or  max_sentence=25; max_length=120;
                 required=退款|七天; forbidden=亲
    allowed      refusal: numbers the reply may give although the question does not
    phrases      refusal: more phrases that count as "the material does not say"
    notes        standard answer + basis for judgement, in words (the judge sees it)
    difficulty   any label (easy / medium / hard sort first)
    lang         zh | en (default: the config's, else zh when the case has CJK text)
    x_…          your own columns, kept with the case and not graded

CSV is read with Python's csv module (quoted commas, quotes and line breaks inside cells, UTF-8
with or without BOM); every problem is a DatasetError naming file, line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proctor.datasets.loaders import unique_samples
from proctor.datasets.records import (
    check_names,
    checked_json,
    csv_rows,
    jsonl_records,
    read_text,
)
from proctor.datasets.suites.case import KINDS, CaseSpec, Kind, Lang, as_kind, prompt_text
from proctor.datasets.suites.config import SuiteConfig, config_path_for, load_config
from proctor.datasets.suites.version import SuiteVersion, suite_version
from proctor.errors import DatasetError
from proctor.types import Sample

COLUMNS = (
    "id",
    "kind",
    "material",
    "question",
    "prompt",
    "expected",
    "match",
    "points",
    "forbidden",
    "constraints",
    "allowed",
    "phrases",
    "notes",
    "difficulty",
    "lang",
)
_OWN_PREFIX = "x_"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_ITEM_SEPARATORS = re.compile(r"[;；\n]")
_SYNONYM_SEPARATORS = re.compile(r"[|｜]")
_REFERENCE = {"zh": "材料未提及。", "en": "The material does not mention it."}


@dataclass(frozen=True)
class Suite:
    path: Path
    config_path: Path | None
    config: SuiteConfig
    samples: tuple[Sample, ...]
    version: SuiteVersion

    @property
    def name(self) -> str:
        return self.config.name or self.path.stem

    def run_config(self) -> dict[str, object]:
        """What a run records about its suite (in the run's config, under "suite")."""
        return {
            "name": self.name,
            "path": str(self.path),
            "config_path": None if self.config_path is None else str(self.config_path),
            "cases": len(self.samples),
            **self.version.as_config(),
            "gate": self.config.gate.model_dump(),
            "judge": self.config.judge,
            "judge_kinds": list(self.config.judge_kinds),
            "judge_max_tokens": self.config.judge_max_tokens,
        }


def load_suite(path: Path) -> Suite:
    """The suite in `path` with its config (if any) and version."""
    config_path = config_path_for(path)
    config = load_config(config_path)
    samples = read_cases(path, config)
    files = [path] if config_path is None else [path, config_path]
    return Suite(path, config_path, config, tuple(samples), suite_version(files))


def read_cases(path: Path, config: SuiteConfig | None = None) -> list[Sample]:
    """The cases of a .csv or .jsonl suite as Samples, in file order."""
    config = config or SuiteConfig()
    file = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise DatasetError(file, None, None, f"unsupported suite file {suffix or '(none)'!r}")
    text = read_text(path, file)
    rows = csv_rows(text, file, _check_columns) if suffix == ".csv" else _jsonl_rows(text, file)
    return unique_samples(rows, lambda row, line: _case(row, config, file, line), file, "no cases")


def _check_columns(names: list[str], file: str, line: int) -> None:
    check_names(names, file, line, "a column has no name", _unknown)
    for name in ("id", "kind"):
        if name not in names:
            raise DatasetError(file, line, name, "missing column")


def _unknown(name: str) -> str | None:
    if name in COLUMNS or name.startswith(_OWN_PREFIX):
        return None
    return f"unknown column (known: {', '.join(COLUMNS)}; name your own columns x_…)"


def _jsonl_rows(text: str, file: str) -> list[tuple[int, dict[str, Any]]]:
    rows = jsonl_records(text, file)
    for number, value in rows:
        _check_columns(list(value), file, number)
    return rows


class _Where:
    """The file and line of the case being read, for errors."""

    def __init__(self, file: str, line: int) -> None:
        self.file, self.line = file, line

    def error(self, field: str | None, message: str) -> DatasetError:
        return DatasetError(self.file, self.line, field, message)


def _text(row: Mapping[str, Any], name: str, at: _Where) -> str:
    value = row.get(name, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise at.error(name, f"must be text, got {json.dumps(value, ensure_ascii=False)}")
    return value.strip()


def _json_cell(value: Any, name: str, at: _Where) -> Any:
    if not isinstance(value, str):
        return value
    return checked_json(value, at.file, at.line, name)


def _string_list(value: Any, name: str, at: _Where, separators: re.Pattern[str]) -> list[str]:
    if isinstance(value, str) and value.strip().startswith("["):
        value = _json_cell(value.strip(), name, at)
    if isinstance(value, str):
        return [p.strip() for p in separators.split(value) if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    raise at.error(name, "must be a list of texts")


def _points(value: Any, name: str, at: _Where) -> list[list[str]]:
    """Points, each a list of synonyms (see the module docstring)."""
    if value is None or value == "":
        return []
    if isinstance(value, str) and value.strip().startswith("["):
        value = _json_cell(value.strip(), name, at)
    if isinstance(value, str):
        items: list[Any] = [p for p in _ITEM_SEPARATORS.split(value) if p.strip()]
        items = [_SYNONYM_SEPARATORS.split(p) for p in items]
    elif isinstance(value, list):
        items = value
    else:
        raise at.error(name, "must be a list of points")
    points: list[list[str]] = []
    for item in items:
        synonyms = [item] if isinstance(item, str) else item
        if not isinstance(synonyms, list) or not all(isinstance(s, str) for s in synonyms):
            raise at.error(name, "each point must be a text or a list of synonyms")
        cleaned = [s.strip() for s in synonyms if s.strip()]
        if cleaned:
            points.append(cleaned)
    return points


def _match(value: Any, expected: Mapping[str, Any], default: str, at: _Where) -> dict[str, str]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return {"*": default}
    if isinstance(value, str):
        text = value.strip()
        if text in ("exact", "contains"):
            return {"*": text}
        if text.startswith("{"):
            value = _json_cell(text, "match", at)
        else:
            pairs = [p.split("=", 1) for p in _ITEM_SEPARATORS.split(text) if p.strip()]
            if any(len(p) != 2 for p in pairs):
                raise at.error("match", "use exact, contains, or key=mode; key=mode")
            value = {k.strip(): v.strip() for k, v in pairs}
    if not isinstance(value, dict):
        raise at.error("match", "use exact, contains, or a JSON object of key → mode")
    modes: dict[str, str] = {"*": default}
    for key, mode in value.items():
        if mode not in ("exact", "contains"):
            raise at.error("match", f"mode of {key!r} must be exact or contains, not {mode!r}")
        if key != "*" and key not in expected:
            raise at.error("match", f"{key!r} is not a key of the expected object")
        modes[str(key)] = mode
    return modes


class _Constraints(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_sentence: int | None = Field(default=None, ge=1)
    max_length: int | None = Field(default=None, ge=1)
    min_length: int | None = Field(default=None, ge=0)
    required: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)


def _constraints(value: Any, at: _Where) -> _Constraints:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            value = _json_cell(text, "constraints", at)
        else:
            raw: dict[str, Any] = {}
            for part in _ITEM_SEPARATORS.split(text):
                if not part.strip():
                    continue
                key, eq, val = part.partition("=")
                if not eq:
                    raise at.error("constraints", f"{part.strip()!r} is not key=value")
                key = key.strip()
                if key in ("required", "forbidden"):
                    raw[key] = [w.strip() for w in re.split(r"[|｜,，]", val) if w.strip()]
                else:
                    raw[key] = val.strip()
            value = raw
    try:
        return _Constraints.model_validate(value)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "constraints"
        raise at.error("constraints", f"{where}: {err['msg']}") from None


def _lang(row: Mapping[str, Any], texts: list[str], config: SuiteConfig, at: _Where) -> Lang:
    given = _text(row, "lang", at)
    if given:
        if given not in ("zh", "en"):
            raise at.error("lang", f"must be zh or en, not {given!r}")
        return "zh" if given == "zh" else "en"
    if config.lang is not None:
        return config.lang
    return "zh" if any(_CJK.search(t) for t in texts) else "en"


def _case(row: Mapping[str, Any], config: SuiteConfig, file: str, line: int) -> Sample:
    at = _Where(file, line)
    case_id = _text(row, "id", at)
    if not case_id:
        raise at.error("id", "must not be blank")
    kind_text = _text(row, "kind", at)
    kind = as_kind(kind_text)
    if kind is None:
        raise at.error("kind", f"must be one of {', '.join(KINDS)}, not {kind_text!r}")
    material, question, prompt = (_text(row, n, at) for n in ("material", "question", "prompt"))
    if prompt and (material or question):
        raise at.error("prompt", "give either prompt, or material and question, not both")
    if not prompt and not question:
        raise at.error("question", "a case needs a question (or a prompt)")
    lang = _lang(row, [material, question, prompt], config, at)
    spec = _spec(kind, row, config, at, lang, material, question or prompt)
    own = {k: str(v) for k, v in row.items() if k.startswith(_OWN_PREFIX) and v not in ("", None)}
    return Sample(
        id=case_id,
        input=prompt_text(spec, prompt),
        target=_target(spec),
        category=kind,
        difficulty=_text(row, "difficulty", at),
        answer_type="text",
        metadata={**spec.to_metadata(), **own},
    )


def _spec(
    kind: Kind,
    row: Mapping[str, Any],
    config: SuiteConfig,
    at: _Where,
    lang: Lang,
    material: str,
    question: str,
) -> CaseSpec:
    base = CaseSpec(
        kind=kind,
        lang=lang,
        question=question,
        material=material,
        system=config.system,
        notes=_text(row, "notes", at),
        source=f"{at.file}:{at.line}",
    )
    forbidden = _points(row.get("forbidden"), "forbidden", at) if kind != "extraction" else []
    if kind == "extraction":
        return _extraction(base, row, config, at)
    reference = _text(row, "expected", at) if not isinstance(row.get("expected"), dict) else ""
    if kind == "summary":
        points = _points(row.get("points"), "points", at)
        if not points:
            raise at.error("points", "a summary case needs at least one required point")
        return replace(base, reference=reference, points=points, forbidden=forbidden)
    if kind == "rewrite":
        raw = row.get("constraints")
        if raw is None or raw == "" or raw == {}:
            raise at.error("constraints", "a rewrite case needs at least one constraint")
        c = _constraints(raw, at)
        words = [[w] for w in c.forbidden] + forbidden
        constraints = c.model_dump(exclude={"forbidden"}, exclude_none=True, exclude_defaults=True)
        if not constraints and not words:
            raise at.error("constraints", "a rewrite case needs at least one constraint")
        return replace(base, reference=reference, constraints=constraints, forbidden=words)
    phrases = config.refusal_phrases + _string_list(
        row.get("phrases") or [], "phrases", at, re.compile(r"[;；\n|｜]")
    )
    allowed = _string_list(row.get("allowed") or [], "allowed", at, re.compile(r"[;；\n|｜]"))
    return replace(
        base,
        reference=reference or _REFERENCE[lang],
        forbidden=forbidden,
        phrases=phrases,
        allowed=allowed,
    )


def _extraction(
    base: CaseSpec, row: Mapping[str, Any], config: SuiteConfig, at: _Where
) -> CaseSpec:
    raw = row.get("expected")
    if raw is None or raw == "":
        raise at.error("expected", "an extraction case needs the expected JSON object")
    expected = _json_cell(raw.strip() if isinstance(raw, str) else raw, "expected", at)
    if not isinstance(expected, dict) or not expected:
        raise at.error("expected", "must be a non-empty JSON object")
    match = _match(row.get("match"), expected, config.match, at)
    conflicts: dict[str, list[str]] = {}
    raw_conflicts = row.get("forbidden")
    if raw_conflicts not in (None, ""):
        value = _json_cell(raw_conflicts, "forbidden", at)
        if not isinstance(value, dict):
            raise at.error(
                "forbidden", 'extraction: a JSON object of key → wrong values: {"name": ["李四"]}'
            )
        for key, wrong in value.items():
            if key not in expected:
                raise at.error("forbidden", f"{key!r} is not a key of the expected object")
            values = [wrong] if isinstance(wrong, str) else wrong
            conflicts[key] = _string_list(values, "forbidden", at, _ITEM_SEPARATORS)
    reference = json.dumps(expected, ensure_ascii=False)
    return replace(base, expected=expected, match=match, conflicts=conflicts, reference=reference)


def _target(spec: CaseSpec) -> str:
    """The case's answer in one line, for reports."""
    if spec.kind == "extraction":
        return json.dumps(spec.expected, ensure_ascii=False)
    if spec.reference:
        return spec.reference
    if spec.kind == "summary":
        return "; ".join(" | ".join(p) for p in spec.points)
    return json.dumps(dict(spec.constraints), ensure_ascii=False)
