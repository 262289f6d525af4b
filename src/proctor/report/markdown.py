"""summary.md: the run in Markdown, short enough for a pull-request comment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.report.samples_csv import rule_explanation
from proctor.report.text import (
    cell_text,
    header_lines,
    interval,
    pct,
    shown_outcomes,
    slice_name,
    slice_values,
    tier_legend,
)
from proctor.stats.metrics import NOT_SCORED, Cell, ModelMetrics, RunMetrics, ranked
from proctor.types import GradedItem, RunInfo

EXAMPLES_PER_MODEL = 5
CELL_LIMIT = 200
# Backslash-escaped so that "2*3*4", "a_b", "$5" or "[x]" show as written (GitHub renders $…$ math).
_MARKDOWN_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`*_~[]|$"})


def escape_html(value: str) -> str:
    """Text safe inside HTML, on one line (Markdown is not read there, so no backslashes)."""
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(value.split())


def escape_cell(value: str, limit: int | None = CELL_LIMIT) -> str:
    """Text safe inside a Markdown table cell: one line, no bare pipes, no stray HTML."""
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = value.translate(_MARKDOWN_SPECIALS)
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")
    return value


def summary_markdown(
    info: RunInfo,
    metrics: RunMetrics,
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
) -> str:
    rows = ranked(metrics)
    header = "\n".join(f"- **{name}**: {escape_cell(value)}" for name, value in header_lines(info))
    parts = [
        f"## proctor run `{info.run_id.replace('`', '')}`",
        header,
        "### Ranking",
        _ranking(rows),
        "### Accuracy by category",
        _slices(rows, [m.by_category for m in rows]),
        "### Accuracy by difficulty",
        _slices(rows, [m.by_difficulty for m in rows]),
        "### Outcomes",
        _outcomes(rows),
        "### Tiers",
        _table(["tier", "accuracy", "meaning"], [list(row) for row in tier_legend()]),
    ]
    failures = _failures(rows, items, rules)
    if failures:
        parts += ["### Example failures", failures]
    return "\n\n".join(parts) + "\n"


def _table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """A table whose cells are already escaped (callers escape what came from outside)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def _ranking(rows: Sequence[ModelMetrics]) -> str:
    head = ["#", "model", "accuracy", "95 % CI", "correct/scored", "tier", "format", "retries"]
    body = [
        [
            str(rank),
            escape_cell(m.model),
            pct(m.accuracy),
            interval(m.ci_low, m.ci_high),
            f"{m.correct}/{m.n_scored}",
            m.tier,
            pct(m.format_compliance),
            str(m.retries),
        ]
        for rank, m in enumerate(rows, start=1)
    ]
    return _table(head, body)


def _slices(rows: Sequence[ModelMetrics], slices: list[Mapping[str, Cell]]) -> str:
    head = ["", *(escape_cell(m.model) for m in rows)]
    body = [
        [escape_cell(slice_name(value)), *(cell_text(by.get(value)) for by in slices)]
        for value in slice_values(slices)
    ]
    return _table(head, body)


def _outcomes(rows: Sequence[ModelMetrics]) -> str:
    outcomes = shown_outcomes(rows)
    body = [[escape_cell(m.model), *(str(m.outcomes[o]) for o in outcomes)] for m in rows]
    return _table(["model", *outcomes], body)


def _failures(
    rows: Sequence[ModelMetrics], items: Sequence[GradedItem], rules: Mapping[str, str]
) -> str:
    """Up to EXAMPLES_PER_MODEL answers per model that counted against it, folded away."""
    sections: list[str] = []
    for m in rows:
        failed = [
            item
            for item in items
            if item.record.model == m.model
            and item.score.outcome not in NOT_SCORED
            and item.score.outcome != "correct"
        ][:EXAMPLES_PER_MODEL]
        if not failed:
            continue
        body = [
            [
                escape_cell(item.sample.id),
                item.score.outcome,
                escape_cell(item.sample.input),
                escape_cell(item.sample.target),
                escape_cell(item.score.extracted) if item.score.extracted is not None else "—",
                escape_cell(rule_explanation(item.score, rules)),
            ]
            for item in failed
        ]
        table = _table(["sample", "outcome", "input", "target", "extracted", "why"], body)
        summary = f"{escape_html(m.model)}: {len(failed)} of {m.n_scored - m.correct} failures"
        sections.append(f"<details><summary>{summary}</summary>\n\n{table}\n\n</details>")
    return "\n\n".join(sections)
