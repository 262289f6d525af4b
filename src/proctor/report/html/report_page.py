"""report.html: one self-contained page per run (charts, tables, and every answer browsable).

The sections that need more than the run's own answers are drawn from optional inputs
(`ReportExtras`). The error taxonomy, model sizes and paired comparisons are worked out from the
run itself when not given (by `proctor.stats`); a run of the same items with a calculator can only
be given. A section without its data says in one line what is missing instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from proctor.report.audit_footer import grader_audit_line
from proctor.report.html import svg
from proctor.report.html.page import render
from proctor.report.html.sample_data import browser_document, script_json
from proctor.report.text import (
    header_lines,
    interval,
    pct,
    shown_outcomes,
    slice_values,
    tier_legend,
)
from proctor.stats.calibration import CalibrationSummary, summarize_calibration
from proctor.stats.metrics import ModelMetrics, RunMetrics, ranked
from proctor.stats.multiple import ranked_comparisons
from proctor.stats.paired import PairedComparison, format_p, points_range, signed_points
from proctor.stats.scores import scores_by_model
from proctor.stats.size import size_trend
from proctor.stats.taxonomy import ERROR_CLASSES, TAXONOMY_RULES, taxonomy_counts
from proctor.types import GradedItem, Outcome, RunInfo


@dataclass(frozen=True)
class ReportExtras:
    """What the run's answers alone do not give; every field is optional.

    prompts     sample id → the prompt text as sent (else the browser shows the sample's input)
    sizes       model → parameter count, for models whose name does not say it
                (`proctor.stats.size.model_size` reads names such as "qwen2.5-7b")
    calculator  metrics of the same items asked with a calculator tool offered
    taxonomy    model → error class → count; None: classified by `proctor.stats.taxonomy`
    paired      paired comparisons; None: each model against the next one down the ranking
                (`proctor.stats.multiple.ranked_comparisons`, Holm-adjusted)
    calibration model → reliability bins, ECE and Brier score of its stated confidences
                (`proctor.stats.calibration.summarize_calibration`); None: the task asks for no
                confidence
    """

    prompts: Mapping[str, str] | None = None
    sizes: Mapping[str, float] | None = None
    calculator: RunMetrics | None = None
    calculator_label: str = "with calculator"
    taxonomy: Mapping[str, Mapping[str, int]] | None = None
    paired: Sequence[PairedComparison] | None = None
    calibration: Mapping[str, CalibrationSummary] | None = None


@dataclass(frozen=True)
class Links:
    """Where the viewer's pages are; a standalone report.html has no navigation."""

    report: str = ""
    samples: str = ""
    note: str = ""
    """A line for the navigation bar, e.g. how the run was graded."""


def overall(m: ModelMetrics) -> svg.Estimate:
    return svg.Estimate(m.accuracy, m.ci_low, m.ci_high, m.n_scored, m.correct)


def report_html(
    info: RunInfo,
    metrics: RunMetrics,
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
    extras: ReportExtras | None = None,
    *,
    links: Links | None = None,
) -> str:
    """The whole report as one HTML document that needs no network to open."""
    extras = extras or ReportExtras()
    rows = ranked(metrics)
    names = [m.model for m in rows]
    outcomes = shown_outcomes(rows)
    taxonomy = extras.taxonomy if extras.taxonomy is not None else taxonomy_counts(items)
    charts, notes = _charts(rows, extras, taxonomy)
    paired = extras.paired
    if paired is None and len(rows) >= 2:
        paired = ranked_comparisons(scores_by_model(items), names, pairs="adjacent")
    return render(
        "report.html.j2",
        title=f"proctor · {info.task} · {info.run_id}",
        viewer=links is not None,
        links=links or Links(),
        info=info,
        header=header_lines(info),
        outcomes=outcomes,
        ranking=[_ranking_row(rank, m, outcomes) for rank, m in enumerate(rows, start=1)],
        tiers=tier_legend(),
        charts=charts,
        notes=notes,
        paired=[_paired_view(p) for p in paired or ()],
        calibration=_calibration_charts(names, extras.calibration),
        taxonomy_rules=[] if extras.taxonomy is not None else _taxonomy_legend(taxonomy),
        total=len(items),
        data=Markup(script_json(browser_document(items, rules, names, extras.prompts))),
        audit=grader_audit_line(info.task),
    )


def samples_html(
    info: RunInfo,
    metrics: RunMetrics,
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
    prompts: Mapping[str, str] | None = None,
    *,
    links: Links | None = None,
) -> str:
    """Only the sample browser of a run (the viewer's sample page)."""
    names = [m.model for m in ranked(metrics)]
    return render(
        "samples.html.j2",
        title=f"proctor · samples · {info.run_id}",
        viewer=links is not None,
        links=links or Links(),
        info=info,
        header=header_lines(info),
        total=len(items),
        data=Markup(script_json(browser_document(items, rules, names, prompts))),
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


def _charts(
    rows: Sequence[ModelMetrics],
    extras: ReportExtras,
    taxonomy: Mapping[str, Mapping[str, int]],
) -> tuple[dict[str, object], dict[str, str]]:
    names = [m.model for m in rows]
    categories = slice_values([m.by_category for m in rows])
    difficulties = slice_values([m.by_difficulty for m in rows])
    by_category = {
        (m.model, c): svg.Estimate.of(cell) for m in rows for c, cell in m.by_category.items()
    }
    by_difficulty = {
        (m.model, d): svg.Estimate.of(cell) for m in rows for d, cell in m.by_difficulty.items()
    }
    charts: dict[str, object] = {
        "ranking": svg.ranking_chart(
            [(m.model, overall(m)) for m in rows], label="accuracy per model, 95 % intervals"
        ),
        "by_category": svg.grouped_bars(
            names, categories, by_category, label="accuracy by category per model"
        ),
        "by_difficulty": svg.grouped_bars(
            names, difficulties, by_difficulty, label="accuracy by difficulty per model"
        ),
        "heatmap": svg.heat_map(
            names,
            categories,
            by_category,
            label="accuracy, model × category",
            filter_attrs=True,
        ),
        "outcomes": svg.stacked_bars(
            names,
            list(shown_outcomes(rows)),
            {m.model: {str(k): v for k, v in m.outcomes.items()} for m in rows},
            label="outcomes per model",
            part_colours=svg.OUTCOME_COLOURS,
        ),
        "taxonomy": None,
        "size": None,
        "calculator": None,
    }
    notes: dict[str, str] = {
        "taxonomy": "",
        "size": "",
        "calculator": "",
        "paired": "",
        "calibration": "",
    }

    classes = list(dict.fromkeys(name for counts in taxonomy.values() for name in counts))
    if classes:
        charts["taxonomy"] = svg.stacked_bars(
            [n for n in names if taxonomy.get(n)],
            classes,
            taxonomy,
            label="kinds of wrong answer per model",
        )
    else:
        notes["taxonomy"] = "error taxonomy: no wrong numeric answer to classify"

    trend = size_trend(rows, extras.sizes)
    if trend.points:
        charts["size"] = svg.scatter(
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
        notes["size"] = "; ".join(said)
    else:
        notes["size"] = "size vs accuracy: no model size known (none is written in the names)"

    calc = extras.calculator
    common = [m for m in rows if calc is not None and any(c.model == m.model for c in calc.models)]
    if calc is not None and common:
        charts["calculator"] = svg.dumbbell(
            [(m.model, overall(m), overall(calc.model(m.model))) for m in common],
            ("bare", extras.calculator_label),
            label="bare vs calculator accuracy",
        )
    elif calc is not None:
        notes["calculator"] = "bare vs calculator: the calculator run has none of these models"
    else:
        notes["calculator"] = "bare vs calculator: no calculator run"

    if extras.calibration is None:
        notes["calibration"] = "calibration: not a confidence-scored task"
    elif not extras.calibration:
        notes["calibration"] = "calibration: no valid reply stated a confidence"

    if len(rows) < 2 and extras.paired is None:
        notes["paired"] = "paired comparison: needs at least two models"
    elif extras.paired is not None and not extras.paired:
        notes["paired"] = "paired comparison: none given"
    return charts, notes


def overall_of(rows: Sequence[ModelMetrics], model: str) -> svg.Estimate:
    return next(overall(m) for m in rows if m.model == model)


def calibration_of(
    pairs: Mapping[str, Sequence[tuple[float, bool]]], bins: int = 10
) -> dict[str, CalibrationSummary]:
    """Model → (confidence, correct) pairs → model → reliability bins, ECE and Brier score; a
    model without pairs is left out."""
    return {
        model: summarize_calibration([c for c, _ in got], [ok for _, ok in got], bins)
        for model, got in pairs.items()
        if got
    }


def _calibration_charts(
    names: Sequence[str], calibration: Mapping[str, CalibrationSummary] | None
) -> list[object]:
    """One reliability diagram per model, in ranking order, then any model not ranked."""
    if not calibration:
        return []
    order = [n for n in names if n in calibration] + [n for n in calibration if n not in names]
    return [
        svg.reliability_chart(model, calibration[model], label=f"reliability diagram · {model}")
        for model in order
    ]
