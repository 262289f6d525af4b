"""samples.csv: one row per model × sample, with the raw reply and the rule that graded it.

Cells are made inert for spreadsheets (`inert`); an unknown token count is an empty cell."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import TextIO

from proctor.types import GradedItem, Score

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
    items: Sequence[GradedItem], rules: Mapping[str, str], models: Sequence[str] = ()
) -> str:
    """CSV text (csv.writer defaults: QUOTE_MINIMAL, CRLF rows); rows grouped by model.

    Models come in the order of `models`, then of first appearance; items keep their order.
    """
    buffer = io.StringIO(newline="")
    write_samples_csv(buffer, items, rules, models)
    return buffer.getvalue()


def write_samples_csv(
    out: TextIO, items: Sequence[GradedItem], rules: Mapping[str, str], models: Sequence[str] = ()
) -> None:
    """`samples_csv`, written row by row into `out`."""
    order = {name: position for position, name in enumerate(models)}
    for item in items:
        order.setdefault(item.record.model, len(order))
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    # A row is three parts: its sample's cells and its grade's cells repeat across the rows
    # (every model answers each sample; identical grades share one Score), so each is made
    # inert once. Keyed by identity: the items hold them, so no id is reused meanwhile.
    sample_cells: dict[int, list[str]] = {}
    score_cells: dict[int, list[str]] = {}
    writer.writerows(
        _row(item, rules, sample_cells, score_cells)
        for item in sorted(items, key=lambda item: order[item.record.model])
    )


def inert(cell: str) -> str:
    """A cell a spreadsheet shows and never runs: one that could start a formula gets a leading
    apostrophe (a plain number such as "-5" or "+3.25" stays as it is: it is no formula)."""
    if cell.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _count(value: int | None) -> str:
    return "" if value is None else str(value)


def _row(
    item: GradedItem,
    rules: Mapping[str, str],
    sample_cells: dict[int, list[str]],
    score_cells: dict[int, list[str]],
) -> list[str]:
    sample, record, score = item.sample, item.record, item.score
    of_sample = sample_cells.get(id(sample))
    if of_sample is None:
        of_sample = sample_cells[id(sample)] = [
            inert(cell)
            for cell in (
                sample.category,
                sample.difficulty,
                sample.answer_type,
                sample.input,
                sample.target,
            )
        ]
    of_score = score_cells.get(id(score))
    if of_score is None:
        of_score = score_cells[id(score)] = [
            inert(cell)
            for cell in (
                score.extracted or "",
                score.normalized or "",
                score.outcome,
                score.rule,
                rule_explanation(score, rules),
                score.explanation,
            )
        ]
    usage = record.usage
    # epoch, attempts, latency and token counts are numbers: `inert` leaves them as they are
    return [
        inert(record.run_id),
        inert(record.model),
        inert(sample.id),
        str(record.epoch),
        *of_sample,
        inert(record.text),
        inert(record.finish_reason),
        *of_score,
        str(record.attempts),
        f"{record.latency_s:.3f}",
        _count(usage.prompt_tokens),
        _count(usage.completion_tokens),
        inert(record.error),
        inert(record.notes),
        # the run whose answer this is (the response cache); "" when asked
        inert(record.cached_from),
        # the provider batch it was asked in (billed at the batch price)
        inert(record.batch_id),
    ]
