"""summary.md: the run in Markdown, short enough for a pull-request comment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.report.samples_csv import rule_explanation
from proctor.report.sections import Section, result_sections
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
from proctor.stats.metrics import Cell, ModelMetrics
from proctor.stats.run_statistics import RunStatistics, failures
from proctor.stats.size import SizeTrend
from proctor.stats.taxonomy import ERROR_CLASSES, TAXONOMY_RULES

EXAMPLES_PER_MODEL = 5
MODEL_COLUMNS = 4
"""Up to this many models, per-slice tables give each model a column; past it, a row (a table
50 models wide reads as no table at all). Names stay whole everywhere: summary.md is a record."""
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


def summary_markdown(stats: RunStatistics) -> str:
    """The run in Markdown: a pure function of its statistics; a section only where the run has
    its data."""
    info, rows = stats.info, list(stats.ranking)
    header = "\n".join(f"- **{name}**: {escape_cell(value)}" for name, value in header_lines(info))
    parts = [f"## proctor run `{info.run_id.replace('`', '')}`", header]
    if stats.has_answers:
        parts += ["### Ranking", _ranking(rows, stats.task.tiers is not None)]
    if stats.task.grading_note:
        parts.append(escape_cell(stats.task.grading_note, limit=None))
    paired = _paired(stats)
    if paired:
        parts += ["### Paired comparisons", paired]
    for piece in stats.slices:
        parts += [
            f"### Accuracy by {piece.key}",
            _slices(rows, [piece.cells[m.model] for m in rows]),
        ]
    if stats.has_answers:
        parts += ["### Outcomes", _outcomes(rows)]
    taxonomy = _taxonomy(rows, stats.taxonomy)
    if taxonomy:
        parts += ["### Wrong numeric answers by kind", taxonomy]
    if stats.size is not None:
        parts += ["### Model size and accuracy", _size(stats.size)]
    for section in result_sections(stats):
        parts += [f"### {escape_cell(section.title, limit=None)}", _section(section)]
    if stats.task.tiers is not None:
        legend = [list(row) for row in tier_legend(stats.task.tiers)]
        parts += ["### Tiers", markdown_table(["tier", "accuracy", "meaning"], legend)]
    failures = _failures(stats)
    if failures:
        parts += ["### Example failures", failures]
    if stats.task.audit:
        parts.append(f"<sub>{escape_cell(stats.task.audit, limit=None)}</sub>")
    return "\n\n".join(parts) + "\n"


def _section(section: Section) -> str:
    body = [
        [escape_cell(cell) if i in section.text_columns else cell for i, cell in enumerate(row)]
        for row in section.rows
    ]
    table = markdown_table([escape_cell(h) for h in section.head], body)
    return table + (f"\n\n{escape_cell(section.note, limit=None)}" if section.note else "")


def markdown_table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """A table whose cells are already escaped (callers escape what came from outside)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def _ranking(rows: Sequence[ModelMetrics], tiers: bool) -> str:
    """The tier column only where tiers mean something (the arithmetic seed's scale)."""
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
    if not tiers:
        head.pop(5)
        for row in body:
            row.pop(5)
    return markdown_table(head, body)


def _slices(rows: Sequence[ModelMetrics], slices: list[Mapping[str, Cell]]) -> str:
    values = slice_values(slices)
    if len(rows) > MODEL_COLUMNS:
        head = ["model", *(escape_cell(slice_name(value)) for value in values)]
        body = [
            [escape_cell(m.model), *(cell_text(by.get(value)) for value in values)]
            for m, by in zip(rows, slices, strict=True)
        ]
        return markdown_table(head, body)
    head = ["", *(escape_cell(m.model) for m in rows)]
    body = [
        [escape_cell(slice_name(value)), *(cell_text(by.get(value)) for by in slices)]
        for value in values
    ]
    return markdown_table(head, body)


def _outcomes(rows: Sequence[ModelMetrics]) -> str:
    outcomes = shown_outcomes(rows)
    body = [[escape_cell(m.model), *(str(m.outcomes[o]) for o in outcomes)] for m in rows]
    return markdown_table(["model", *outcomes], body)


def _paired(stats: RunStatistics) -> str:
    """Each model against the next one down the ranking, on the items both answered."""
    comparisons = stats.paired
    if not comparisons:
        return ""
    lines = []
    for c in comparisons:
        mark = "✅" if c.significant else "➖"
        lines.append(f"- {mark} {escape_cell(c.verdict(), limit=None)}")
    family = (
        f", Holm-adjusted over the {len(comparisons)} comparisons" if len(comparisons) > 1 else ""
    )
    tests = sorted({c.test for c in comparisons if c.n})
    method = (
        f"Each model against the next one down, on the items both answered: "
        f"{' / '.join(tests) or 'no common item'} test (two-sided, α = 0.05{family}); "
        "95 % paired percentile bootstrap interval of the difference (10,000 resamples, seed 0)."
    )
    return "\n".join(lines) + "\n\n" + escape_cell(method, limit=None)


def _taxonomy(rows: Sequence[ModelMetrics], counts: Mapping[str, Mapping[str, int]]) -> str:
    """Kinds of wrong numeric answer per model, each with its one-sentence rule."""
    classes = [name for name in ERROR_CLASSES if any(name in c for c in counts.values())]
    if not classes:
        return ""
    if len(rows) > MODEL_COLUMNS:
        body = [
            [escape_cell(m.model), *(str(counts.get(m.model, {}).get(name, 0)) for name in classes)]
            for m in rows
        ]
        rules = [[name, escape_cell(TAXONOMY_RULES[name])] for name in classes]
        return (
            markdown_table(["model", *classes], body)
            + "\n\n"
            + markdown_table(["kind", "rule"], rules)
        )
    head = ["kind", *(escape_cell(m.model) for m in rows), "rule"]
    body = [
        [
            name,
            *(str(counts.get(m.model, {}).get(name, 0)) for m in rows),
            escape_cell(TAXONOMY_RULES[name]),
        ]
        for name in classes
    ]
    return markdown_table(head, body)


def _parameters(count: float) -> str:
    """7e9 → "7B", 1.35e8 → "135M"."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if count >= scale:
            return f"{count / scale:.3g}{unit}"
    return f"{count:.3g}"


def _size(trend: SizeTrend) -> str:
    """Accuracy by parameter count (the run knows the size of at least two models)."""
    body = [
        [
            escape_cell(p.model),
            _parameters(p.parameters),
            pct(p.accuracy),
            interval(p.ci_low, p.ci_high),
        ]
        for p in trend.points
    ]
    lines = [markdown_table(["model", "parameters", "accuracy", "95 % CI"], body)]
    if trend.slope_per_decade is not None:
        said = f"{trend.slope_per_decade * 100:+.1f} points of accuracy per tenfold parameters"
        if trend.spearman is not None:
            said += f"; rank correlation ρ = {trend.spearman:.2f}"
        lines.append(said.replace("-", "−") + f" (over {len(trend.points)} models).")
    if trend.unknown:
        lines.append("Size unknown: " + ", ".join(escape_cell(m) for m in trend.unknown) + ".")
    return "\n\n".join(lines)


def _failures(stats: RunStatistics) -> str:
    """Up to EXAMPLES_PER_MODEL answers per model that counted against it, folded away."""
    sections: list[str] = []
    by_model = failures(stats, EXAMPLES_PER_MODEL)
    for m in stats.ranking:
        failed = by_model.get(m.model, ())
        if not failed:
            continue
        body = [
            [
                escape_cell(item.sample.id),
                item.score.outcome,
                escape_cell(item.sample.input),
                escape_cell(item.sample.target),
                escape_cell(item.score.extracted) if item.score.extracted is not None else "—",
                escape_cell(rule_explanation(item.score, stats.task.rules)),
            ]
            for item in failed
        ]
        table = markdown_table(["sample", "outcome", "input", "target", "extracted", "why"], body)
        summary = f"{escape_html(m.model)}: {len(failed)} of {m.n_scored - m.correct} failures"
        sections.append(f"<details><summary>{summary}</summary>\n\n{table}\n\n</details>")
    return "\n\n".join(sections)
