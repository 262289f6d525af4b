"""samples.csv: one row per model × sample, with the raw reply and the rule that graded it.

Cells are made inert for spreadsheets (`inert`); an unknown token count is an empty cell."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import TextIO

from proctor.stats.model_parts import Items, in_model_order
from proctor.stats.reviews import HumanGrade
from proctor.types import GradedItem, Score

HumanGrades = Mapping[tuple[str, str, int], HumanGrade]

COLUMNS: tuple[str, ...] = (
    "run_id",
    "model",
    "sample_id",
    "epoch",
    "category",
    "difficulty",
    "answer_type",
    "input",
    "target",
    "raw_response",
    "finish_reason",
    "extracted",
    "normalized",
    "outcome",
    "rule",
    "rule_explanation",
    "explanation",
    "attempts",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "error",
    "notes",
    "cached_from",
    "batch_id",
    "human_verdict",
    "human_reviewer",
    "human_note",
)

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""What a spreadsheet may read as the start of a formula (OWASP "CSV injection"; the
full-width forms too, which some spreadsheets fold to ASCII)."""
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")


def rule_explanation(score: Score, rules: Mapping[str, str]) -> str:
    """The rule's one sentence; for a compound rule "a+b", those of its parts that are known.

    Falls back to the score's own explanation when no part of the rule is known.
    """
    if score.rule in rules:
        return rules[score.rule]
    parts = [rules[part] for part in score.rule.split("+") if part in rules]
    return " ".join(parts) if parts else score.explanation


def samples_csv(
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
    models: Sequence[str] = (),
    human: HumanGrades | None = None,
) -> str:
    """CSV text (the excel dialect of `csv.writer`: QUOTE_MINIMAL, CRLF rows); rows grouped
    by model. Models come in the order of `models`, then of first appearance; items keep their
    order."""
    buffer = io.StringIO(newline="")
    write_samples_csv(buffer, items, rules, models, human)
    return buffer.getvalue()


def write_samples_csv(
    out: TextIO,
    items: Items,
    rules: Mapping[str, str],
    models: Sequence[str] = (),
    human: HumanGrades | None = None,
) -> None:
    """`samples_csv`, written a thousand rows at a time into `out`; `human`: the people's
    verdict that counts for each reviewed reply (its last three columns; empty for the rest)."""
    out.write(",".join(COLUMNS) + "\r\n")
    lines = _Lines(rules, human or {})
    chunk: list[str] = []
    for item in in_model_order(items, models):
        chunk.append(lines.line(item))
        if len(chunk) == _CHUNK:
            out.write("".join(chunk))
            chunk.clear()
    out.write("".join(chunk))


_CHUNK = 1000
_KEPT = 20_000
_NEEDS_QUOTES = re.compile('[,"\r\n]')


def csv_field(cell: str) -> str:
    """`cell` as `csv.writer` (excel dialect, QUOTE_MINIMAL) writes it in a row of several:
    quoted, with its quotes doubled, when it holds a comma, a quote, CR or LF. Checked against
    csv.writer cell by cell in tests/report/test_samples_csv.py: writing lines ourselves
    lets a row's repeated parts be written once (csv.writer spends ~11 ns on every character)."""
    if _NEEDS_QUOTES.search(cell):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _field(cell: str) -> str:
    """A cell made inert, then written as a CSV field."""
    return csv_field(inert(cell)) if cell else ""


def inert(cell: str) -> str:
    """A cell a spreadsheet shows and never runs: one that could start a formula gets a leading
    apostrophe (a plain number such as "-5" or "+3.25" stays as it is: it is no formula)."""
    if cell.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


class _Lines:
    """samples.csv's rows as text lines. Most of a row repeats: its sample's cells (every model
    answers each sample), its grade's (identical grades share one Score: the rule's statement is
    half the file), its run and model; each such part is written once and reused. Parts are
    keyed by value, never by identity: streamed items (`ItemStream`) are freed as they are
    written, and a freed object's id is reused by the next one. The caches start again past
    `_KEPT` parts, so memory stays flat however many distinct grades a run has."""

    def __init__(self, rules: Mapping[str, str], human: HumanGrades) -> None:
        self._rules = rules
        self._human = human
        self._heads: dict[tuple[str, str], str] = {}
        self._samples: dict[tuple[str, ...], tuple[str, str]] = {}
        self._scores: dict[Score, str] = {}
        self._finish: dict[str, str] = {}

    def line(self, item: GradedItem) -> str:
        sample, record, score = item.sample, item.record, item.score
        head = self._heads.get((record.run_id, record.model))
        if head is None:
            head = self._heads[(record.run_id, record.model)] = (
                f"{_field(record.run_id)},{_field(record.model)}"
            )
        key = (sample.id, sample.category, sample.difficulty, sample.answer_type, sample.input,
               sample.target)  # fmt: skip
        of_sample = self._samples.get(key)
        if of_sample is None:
            if len(self._samples) > _KEPT:
                self._samples.clear()
            of_sample = self._samples[key] = (
                _field(sample.id),
                ",".join(
                    _field(cell)
                    for cell in (
                        sample.category,
                        sample.difficulty,
                        sample.answer_type,
                        sample.input,
                        sample.target,
                    )
                ),
            )
        of_score = self._scores.get(score)
        if of_score is None:
            if len(self._scores) > _KEPT:
                self._scores.clear()
            of_score = self._scores[score] = ",".join(
                _field(cell)
                for cell in (
                    score.extracted or "",
                    score.normalized or "",
                    score.outcome,
                    score.rule,
                    rule_explanation(score, self._rules),
                    score.explanation,
                )
            )
        finish = self._finish.get(record.finish_reason)
        if finish is None:
            finish = self._finish[record.finish_reason] = _field(record.finish_reason)
        usage = record.usage
        prompt, completion = usage.prompt_tokens, usage.completion_tokens
        # The call's error and notes, the run whose answer this is (the response cache; "" when
        # asked), the provider batch it was asked in (billed at the batch price): all "" for
        # most answers.
        if record.error or record.notes or record.cached_from or record.batch_id:
            tail = ",".join(
                _field(cell)
                for cell in (record.error, record.notes, record.cached_from, record.batch_id)
            )
        else:
            tail = ",,,"
        grade = self._human.get((record.model, sample.id, record.epoch)) if self._human else None
        if grade is not None:
            tail += "," + ",".join(_field(c) for c in (grade.verdict, grade.reviewer, grade.note))
        else:
            tail += ",,,"
        # epoch, attempts, latency and token counts are numbers: no quotes, and `inert` leaves
        # them as they are; an unknown token count is an empty cell.
        return (
            f"{head},{of_sample[0]},{record.epoch},{of_sample[1]},{_field(record.text)},"
            f"{finish},{of_score},{record.attempts},{record.latency_s:.3f},"
            f"{'' if prompt is None else prompt},{'' if completion is None else completion},"
            f"{tail}\r\n"
        )
