"""Structured answers: the model must answer in the protocol
`{answer, confidence_score, source_citation, valid_until}` and is graded on three axes.

dataset  builtin/structured/items.jsonl: 20 items (10 English, 10 Chinese), each with a question
         time, a time-sensitive flag, a few labelled sources to cite, the expected answer (with
         its unit and an optional tolerance: the item's contract) and the id of the source that
         holds the exact data point; or the user's own JSONL in that format
prompt   "json": the protocol as a system message; sources, question time and question as the
         user message, in the item's own language
extract  strict JSON (no repair; a code fence is noted) validated by pydantic
score    correct/wrong by the answer (read as a quantity in words against the contract, or as
         normalised text), unscored when the answer has no single reading; invalid JSON or schema
         → violation with the reason; every grade's explanation carries the three axes, the
         weighted total and an attribution line for each point lost
metrics  mean total and mean of each axis, valid-reply rate, ECE and Brier score
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proctor.datasets.benchmarks import builtin_bytes
from proctor.datasets.perturb import perturb
from proctor.datasets.records import checked_json, read_text
from proctor.errors import ConfigError, DatasetError
from proctor.extract.quantity_match import expected_quantity
from proctor.score.structured import (
    ANSWER_FIELDS,
    RULES,
    StructuredItem,
    StructuredScorer,
    parse_iso_date,
)
from proctor.stats.calibration import brier_score, expected_calibration_error
from proctor.stats.perturbation import accuracy_drop
from proctor.tasks.base import Benchmark, Dataset
from proctor.types import GradedItem, Message, Outcome, Prompt, Record, Sample, Score

VERSION = "3"
"""2: answers read by the quantity reader against the item's unit and tolerance; 3: the reader
knows the units of the one unit table (sq ft, cups, gallons, ounces, cents…), dozen is a scale
word, and 两个半 / 三个半月 are 2.5 / 3.5 months (they were read as 2 and 3)."""
VARIANT = "json"
SOURCE = "builtin/structured/items.jsonl"


class _Source(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)


class _ItemRow(BaseModel):
    """One line of a structured-answer file."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    lang: str = "en"
    question_time: str
    time_sensitive: bool
    question: str = Field(min_length=1)
    expected: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    sources: list[_Source] = Field(min_length=1)
    data_point: list[str] = Field(default_factory=list)
    formula: str = ""
    """For number perturbations: the answer as arithmetic over `{name}` slots of `values`."""
    values: dict[str, str] = Field(default_factory=dict)
    unit: str = ""
    """The unit of `expected` ("tonnes", "亿元", "billion US dollars", "percent")."""
    tolerance: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Absolute, in `unit`."""
    rel_tolerance: float | None = Field(default=None, ge=0, allow_inf_nan=False)

    @field_validator("question_time")
    @classmethod
    def _time(cls, v: str) -> str:
        if parse_iso_date(v) is None:
            raise ValueError(f"must be an ISO 8601 date, got {v!r}")
        return v

    @field_validator("lang")
    @classmethod
    def _lang(cls, v: str) -> str:
        if v not in ("en", "zh"):
            raise ValueError(f"must be en or zh, got {v!r}")
        return v


def read_items(text: str, file: str) -> tuple[Sample, ...]:
    samples: list[Sample] = []
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = _ItemRow.model_validate(checked_json(line, file, n, None))
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise DatasetError(file, n, where, err["msg"]) from None
        if row.id in seen:
            raise DatasetError(file, n, "id", f"duplicate id {row.id!r}")
        for field, text in (("expected", row.expected), *(("aliases", a) for a in row.aliases)):
            try:
                expected_quantity(text, row.unit, row.tolerance, row.rel_tolerance)
            except ValueError as e:
                raise DatasetError(file, n, "unit" if row.unit else field, str(e)) from None
        stated = {"unit": row.unit, "tolerance": row.tolerance, "rel_tolerance": row.rel_tolerance}
        contract = [field for field, v in stated.items() if v not in ("", None)]
        if contract and expected_quantity(row.expected, row.unit) is None:
            raise DatasetError(
                file, n, contract[0], f"a {contract[0]} needs a numeric expected answer"
            )
        seen.add(row.id)
        samples.append(
            Sample(
                id=row.id,
                input=row.question,
                target=row.expected,
                category=f"{row.lang}-{'dated' if row.time_sensitive else 'timeless'}",
                answer_type="text",
                metadata={
                    "lang": row.lang,
                    "question_time": row.question_time,
                    "time_sensitive": "true" if row.time_sensitive else "false",
                    "aliases": json.dumps(row.aliases, ensure_ascii=False),
                    "sources": json.dumps(
                        [[s.id, s.text] for s in row.sources], ensure_ascii=False
                    ),
                    "data_point": json.dumps(row.data_point, ensure_ascii=False),
                    **(
                        {"formula": row.formula, "values": json.dumps(row.values)}
                        if row.formula
                        else {}
                    ),
                    **({"unit": row.unit} if row.unit else {}),
                    **({"tolerance": repr(row.tolerance)} if row.tolerance is not None else {}),
                    **(
                        {"rel_tolerance": repr(row.rel_tolerance)}
                        if row.rel_tolerance is not None
                        else {}
                    ),
                },
            )
        )
    if not samples:
        raise DatasetError(file, None, None, "no items")
    return tuple(samples)


def load(seed: int | None, n: int | None) -> Dataset:
    samples = read_items(builtin_bytes("structured", "items.jsonl").decode("utf-8"), SOURCE)
    if n is not None:
        samples = samples[:n]
    return Dataset.of(samples, "structured-2", SOURCE)


def load_file(path: Path, seed: int | None) -> Dataset:
    samples = read_items(read_text(path, str(path)), str(path))
    return Dataset.of(samples, "file", str(path))


_SYSTEM = {
    "en": (
        "You are a careful analyst. Reply with exactly one JSON object and nothing else, with "
        "exactly these fields:\n"
        '{"answer": string, the answer only, no explanation;\n'
        ' "confidence_score": number from 0.0 to 1.0, how sure you are of the answer;\n'
        ' "source_citation": array of strings, the IDs of the sources below that support the '
        "answer (at least two, the most precise first);\n"
        ' "valid_until": string, the ISO 8601 date (YYYY-MM-DD) until which the answer holds, '
        'or "FOREVER" for a timeless fact}\n'
        "No other fields, no text before or after the JSON, no Markdown."
    ),
    "zh": (
        "你是一名严谨的分析助手。只输出一个JSON对象，不得输出任何其他内容，字段必须且只能是：\n"
        '{"answer": 字符串，只写答案本身，不含解释；\n'
        ' "confidence_score": 0.0到1.0之间的数，表示你对答案的确定程度；\n'
        ' "source_citation": 字符串数组，列出支撑答案的下列来源ID（至少两个，最精确的放在最前）；\n'
        ' "valid_until": 字符串，答案有效截止日期（ISO 8601格式YYYY-MM-DD），'
        '永恒不变的事实填"FOREVER"}\n'
        "不得添加其他字段，JSON前后不得有任何文字，不要使用Markdown。"
    ),
}
_USER = {
    "en": "Question time: {time}\nSources:\n{sources}\n\nQuestion: {question}",
    "zh": "提问时间：{time}\n来源：\n{sources}\n\n问题：{question}",
}


def build_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    """The item's own language decides the wording (`lang` is not used: the items are already
    written in English or Chinese)."""
    if variant != VARIANT:
        raise ConfigError(f"unknown prompt variant {variant!r} for task structured: use json")
    own = sample.metadata.get("lang", "en")
    sources = json.loads(sample.metadata.get("sources", "[]"))
    listed = "\n".join(f"[{sid}] {text}" for sid, text in sources)
    user = _USER[own].format(
        time=sample.metadata["question_time"], sources=listed, question=sample.input
    )
    return Prompt((Message("system", _SYSTEM[own]), Message("user", user)), VARIANT, own)


def item_of(sample: Sample) -> StructuredItem:
    """What the scorer needs from a sample's metadata."""
    question = parse_iso_date(sample.metadata["question_time"])
    if question is None:
        raise DatasetError(sample.id, None, "question_time", "not an ISO 8601 date")
    return StructuredItem(
        expected=sample.target,
        question_time=question,
        time_sensitive=sample.metadata.get("time_sensitive") == "true",
        aliases=tuple(json.loads(sample.metadata.get("aliases", "[]"))),
        data_point=tuple(json.loads(sample.metadata.get("data_point", "[]"))),
        unit=sample.metadata.get("unit", ""),
        tolerance=_number(sample.metadata.get("tolerance")),
        rel_tolerance=_number(sample.metadata.get("rel_tolerance")),
        question=sample.input,
    )


def _number(text: str | None) -> float | None:
    return None if text is None else float(text)


SCORER = StructuredScorer()


def grade_record(record: Record, sample: Sample) -> Score:
    graded = SCORER.score_text(record.text, item_of(sample))
    axes = ", ".join(f"{a.axis} {a.value:.2f}" for a in graded.axes)
    lines = [graded.reason, f"total {graded.total:.3f} ({axes})", *graded.attribution]
    lines.extend(f"note: {n}" for n in graded.notes)
    explanation = "\n".join(lines)
    if not graded.valid:
        outcome: Outcome = "truncated" if record.finish_reason == "length" else "violation"
        return Score(outcome, "structured_schema", explanation, format_ok=False)
    return Score(
        graded.verdict,
        graded.rule,
        explanation,
        extracted=graded.answer,
        normalized=graded.answer,
        format_ok=True,
    )


def confidence_pairs(items: Sequence[GradedItem]) -> Mapping[str, list[tuple[float, bool]]]:
    """Per model: (stated confidence, answer right) for every valid reply, in item order; a
    model without a valid reply is left out. Pure: for the report's reliability diagram."""
    out: dict[str, list[tuple[float, bool]]] = {}
    for it in items:
        if it.record.status != "ok":
            continue
        s = SCORER.score_text(it.record.text, item_of(it.sample))
        if s.scored and s.confidence is not None:
            out.setdefault(it.record.model, []).append((s.confidence, s.correct))
    return out


def structured_metrics(items: Sequence[GradedItem]) -> Mapping[str, Mapping[str, float]]:
    """Per model: mean total and axes over every answered item (an invalid reply counts 0), the
    valid-reply rate, and ECE / Brier over the valid replies; an answer left unscored counts in
    none of them (its share is "unscored answers")."""
    by_model: dict[str, list[GradedItem]] = {}
    for it in items:
        if it.record.status == "ok":
            by_model.setdefault(it.record.model, []).append(it)
    out: dict[str, dict[str, float]] = {}
    for model, group in by_model.items():
        graded = [SCORER.score_text(it.record.text, item_of(it.sample)) for it in group]
        scores = [s for s in graded if s.verdict != "unscored"]
        valid = [s for s in scores if s.valid and s.confidence is not None]
        n = len(scores)
        if not n:
            out[model] = {"unscored answers": 1.0}
            continue
        conf = [s.confidence for s in valid if s.confidence is not None]
        ok = [s.correct for s in valid]
        out[model] = {
            "structured total (mean)": sum(s.total for s in scores) / n,
            "calibration (mean)": sum(s.axis("calibration") for s in scores) / n,
            "timeliness (mean)": sum(s.axis("timeliness") for s in scores) / n,
            "traceability (mean)": sum(s.axis("traceability") for s in scores) / n,
            "valid replies": len(valid) / n,
        }
        if len(scores) < len(graded):
            out[model]["unscored answers"] = 1 - len(scores) / len(graded)
        if valid:
            out[model]["ECE"] = expected_calibration_error(conf, ok)
            out[model]["Brier"] = brier_score(conf, ok)
    return out


def load_perturbed(seed: int | None, n: int | None) -> Dataset:
    """The shipped items, each followed by its date-shifted, number-changed and reworded
    variants (seeded)."""
    base = load(None, n)
    samples = tuple(perturb(base.samples, seed=0 if seed is None else seed))
    return Dataset.of(samples, "structured-2+perturb-1", SOURCE)


def perturbed_metrics(items: Sequence[GradedItem]) -> Mapping[str, Mapping[str, float]]:
    """The structured metrics, plus the accuracy drop from original to variant per kind."""
    out = {m: dict(v) for m, v in structured_metrics(items).items()}
    for d in accuracy_drop(items):
        out.setdefault(d.model, {})[f"accuracy drop ({d.kind}, {d.pairs} pairs)"] = d.drop
    return out


TASK = Benchmark(
    "structured",
    VERSION,
    f"Structured answers {{{', '.join(ANSWER_FIELDS)}}} on three axes.",
    load,
    build_prompt,
    variants=(VARIANT,),
    max_tokens=256,
    load_file=load_file,
).task(
    grade_record,
    RULES,
    metrics=structured_metrics,
    confidence=confidence_pairs,
)

TASK_PERTURBED = replace(
    TASK,
    name="structured-perturbed",
    description="The structured items and their perturbed variants: dates, numbers, wording.",
    load=load_perturbed,
    metrics=perturbed_metrics,
    load_file=None,
)
