"""report.html: one self-contained page per run (charts, tables, and its answers browsable: all
of them up to `REPORT_ANSWERS`, else every model's answers to the paper's first samples).

A pure function of the run's `RunStatistics`: a section is drawn only when the run has its data
(no tier column outside a task with a tier scale, no "Size vs accuracy" without two known
sizes, no calibration for a task that asks for no confidence).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from proctor.report.html import svg, svg_plots
from proctor.report.html.page import render
from proctor.report.html.sample_data import browser_document, first_samples, script_json
from proctor.report.html.turn_view import turn_transcripts
from proctor.report.sections import Section, result_sections
from proctor.report.text import (
    header_lines,
    interval,
    pct,
    shown_outcomes,
    tier_legend,
)
from proctor.stats.calibration import CalibrationSummary
from proctor.stats.metrics import ModelMetrics
from proctor.stats.model_parts import held
from proctor.stats.paired import PairedComparison, format_p, points_range, signed_points
from proctor.stats.reviews import HumanGrade
from proctor.stats.run_statistics import RunStatistics
from proctor.stats.taxonomy import ERROR_CLASSES, TAXONOMY_RULES
from proctor.types import Outcome


@dataclass(frozen=True)
class Links:
    """Where the viewer's pages are; a standalone report.html has no navigation."""

    report: str = ""
    samples: str = ""
    note: str = ""
    """A line for the navigation bar, e.g. how the run was graded."""
    review: str = ""
    """The run's review pages (people grade its replies), or "" where there are none."""


REPORT_ANSWERS = 5000
"""At most this many answers ride in report.html's sample browser (every model's answers to the
paper's first samples): a 100,000-answer run would make a 14 MB page that renders slowly and
says nothing samples.csv and `proctor view` do not. The viewer's samples page carries all."""


def overall(m: ModelMetrics) -> svg.Estimate:
    return svg.Estimate(m.accuracy, m.ci_low, m.ci_high, m.n_scored, m.correct)


def report_html(stats: RunStatistics, *, links: Links | None = None) -> str:
    """The whole report as one HTML document that needs no network to open."""
    rows = list(stats.ranking)
    names = list(stats.models)
    outcomes = shown_outcomes(rows)
    info = stats.info
    tiers = stats.task.tiers
    kept, shown = first_samples(stats.items, REPORT_ANSWERS)
    return _run_page(
        "report.html.j2",
        f"proctor · {info.task} · {info.run_id}",
        stats,
        links,
        suite=stats.suite,
        grading_note=stats.task.grading_note,
        answers=stats.has_answers,
        outcomes=outcomes,
        ranking=[_ranking_row(rank, m, outcomes) for rank, m in enumerate(rows, start=1)],
        tiers=tier_legend(tiers) if tiers is not None else [],
        charts=_charts(stats),
        paired=[_paired_view(p) for p in stats.paired],
        calibration=_calibration_charts(names, stats.calibration),
        taxonomy_rules=_taxonomy_legend(stats.taxonomy),
        sections=_with_ids(result_sections(stats)),
        shown=shown,
        data=Markup(
            script_json(
                browser_document(kept, stats.task.rules, names, stats.prompts, _human(stats))
            )
        ),
        audit=stats.task.audit,
        transcripts=turn_transcripts(stats),
    )


def _human(stats: RunStatistics) -> Mapping[tuple[str, str, int], HumanGrade] | None:
    return None if stats.human is None else stats.human.grades


def _with_ids(sections: Sequence[Section]) -> list[tuple[str, Section]]:
    """Each section with a unique HTML id: its key, then "judge-2" for a second judge."""
    seen: Counter[str] = Counter()
    out = []
    for section in sections:
        seen[section.key] += 1
        n = seen[section.key]
        out.append((section.key if n == 1 else f"{section.key}-{n}", section))
    return out


def samples_html(stats: RunStatistics, *, links: Links | None = None) -> str:
    """Only the sample browser of a run (the viewer's sample page)."""
    return _run_page(
        "samples.html.j2",
        f"proctor · samples · {stats.info.run_id}",
        stats,
        links,
        shown=first_samples(stats.items, None)[1],
        data=Markup(
            script_json(
                browser_document(
                    held(stats.items),
                    stats.task.rules,
                    list(stats.models),
                    stats.prompts,
                    _human(stats),
                )
            )
        ),
    )


def _run_page(
    template: str, title: str, stats: RunStatistics, links: Links | None, **fields: object
) -> str:
    """A page of one run: its title, the viewer's links (none in a standalone file) and the
    run's header, above its own `fields`."""
    return render(
        template,
        title=title,
        viewer=links is not None,
        links=links or Links(),
        info=stats.info,
        header=header_lines(stats.info),
        **fields,
    )


def _ranking_row(rank: int, m: ModelMetrics, outcomes: Sequence[Outcome]) -> dict[str, object]:
    return {
        "rank": rank,
        "model": m.model,
        "accuracy": pct(m.accuracy),
        "ci": interval(m.ci_low, m.ci_high),
        "correct": f"{m.correct} / {m.n_scored}",
        "tier": m.tier,
        "tier_label": m.tier_label,
        "format": pct(m.format_compliance),
        "outcomes": [m.outcomes[o] for o in outcomes],
        "retries": m.retries,
        "latency": "—" if m.mean_latency_s is None else f"{m.mean_latency_s:.2f} s",
        "tokens": f"{m.total_prompt_tokens:,} / {m.total_completion_tokens:,}"
        + (f" (+ {m.unknown_usage:,} answers of unknown size)" if m.unknown_usage else ""),
    }


def _paired_view(p: PairedComparison) -> dict[str, object]:
    ci = "—"
    if p.n and p.ci_low is not None and p.ci_high is not None:
        ci = points_range(p.ci_low, p.ci_high)
    return {
        "a": p.a,
        "b": p.b,
        "n": p.n,
        "difference": "—" if p.n == 0 else signed_points(p.difference),
        "ci": ci,
        "a_only": p.a_only,
        "b_only": p.b_only,
        "p": format_p(p.p) + (" (Holm)" if p.p_adjusted is not None else ""),
        "test": p.test,
        "verdict": p.verdict(),
        "significant": p.significant,
    }


def _taxonomy_legend(taxonomy: Mapping[str, Mapping[str, int]]) -> list[tuple[str, str]]:
    """(class, its rule) for each of our error classes that occurs."""
    seen = {name for counts in taxonomy.values() for name in counts}
    return [(name, TAXONOMY_RULES[name]) for name in ERROR_CLASSES if name in seen]


def _charts(stats: RunStatistics) -> dict[str, object]:
    """Each chart the run has data for; a chart it has none for is None (its section is not
    drawn)."""
    rows = list(stats.ranking)
    names = list(stats.models)
    charts: dict[str, object] = {
        "ranking": svg.ranking_chart(
            [(m.model, overall(m)) for m in rows], label="accuracy per model, 95 % intervals"
        ),
        "outcomes": svg_plots.stacked_bars(
            names,
            list(shown_outcomes(rows)),
            {m.model: {str(k): v for k, v in m.outcomes.items()} for m in rows},
            label="outcomes per model",
            part_colours=svg.OUTCOME_COLOURS,
        ),
        "by_category": None,
        "by_difficulty": None,
        "heatmap": None,
        "taxonomy": None,
        "size": None,
        "calculator": None,
    }
    for piece in stats.slices:
        cells = {
            (model, value): svg.Estimate.of(cell)
            for model, by in piece.cells.items()
            for value, cell in by.items()
        }
        values = list(piece.values)
        charts[f"by_{piece.key}"] = svg.grouped_bars(
            names, values, cells, label=f"accuracy by {piece.key} per model"
        )
        if piece.key == "category":
            charts["heatmap"] = svg.heat_map(
                names, values, cells, label="accuracy, model × category", filter_attrs=True
            )
    taxonomy = stats.taxonomy
    classes = list(dict.fromkeys(name for counts in taxonomy.values() for name in counts))
    if classes:
        charts["taxonomy"] = svg_plots.stacked_bars(
            [n for n in names if taxonomy.get(n)],
            classes,
            taxonomy,
            label="kinds of wrong answer per model",
        )
    trend = stats.size
    if trend is not None:
        charts["size"] = svg_plots.scatter(
            [
                svg.ScatterPoint(p.model, p.parameters / 1e9, overall_of(rows, p.model))
                for p in trend.points
            ],
            x_label="parameters (billions, log scale)",
            label="size vs accuracy",
        )
        said: list[str] = []
        if trend.slope_per_decade is not None:
            said.append(f"{trend.slope_per_decade * 100:+.1f} points per tenfold parameters")
        if trend.spearman is not None:
            said.append(f"Spearman ρ = {trend.spearman:.2f}")
        if trend.unknown:
            said.append(
                f"size unknown for {len(trend.unknown)} model(s): " + ", ".join(trend.unknown)
            )
        charts["size_note"] = "; ".join(said)
    calc = stats.calculator
    common = [m for m in rows if calc is not None and any(c.model == m.model for c in calc.models)]
    if calc is not None and common:
        charts["calculator"] = svg_plots.dumbbell(
            [(m.model, overall(m), overall(calc.model(m.model))) for m in common],
            ("bare", "with calculator"),
            label="bare vs calculator accuracy",
        )
    return charts


def overall_of(rows: Sequence[ModelMetrics], model: str) -> svg.Estimate:
    return next(overall(m) for m in rows if m.model == model)


def _calibration_charts(
    names: Sequence[str], calibration: Mapping[str, CalibrationSummary] | None
) -> list[object]:
    """One reliability diagram per model, in ranking order, then any model not ranked."""
    if not calibration:
        return []
    order = [n for n in names if n in calibration] + [n for n in calibration if n not in names]
    return [
        svg_plots.reliability_chart(
            model, calibration[model], label=f"reliability diagram · {model}"
        )
        for model in order
    ]
