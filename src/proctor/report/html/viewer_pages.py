"""The pages of `proctor view` that are not a run's report: the runs list and the comparison
of two runs. Pure: they get plain values and return HTML; the viewer reads the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from proctor.report.compare import Side, compare_runs, side_labels
from proctor.report.html import svg
from proctor.report.html.page import render
from proctor.report.html.report_page import overall
from proctor.report.text import header_lines, interval, pct, slice_values
from proctor.stats.metrics import RunMetrics, ranked
from proctor.stats.paired import format_p
from proctor.types import GradedItem, RunInfo

FLIPS_SHOWN = 200


def run_href(run_id: str) -> str:
    return "/runs/" + quote(run_id, safe="")


def samples_href(run_id: str) -> str:
    return run_href(run_id) + "/samples"


@dataclass(frozen=True)
class RunListing:
    """One line of the runs list."""

    run_id: str
    task: str
    created_at: str
    status: str
    models: tuple[str, ...]
    n_samples: int
    n_records: int


@dataclass(frozen=True)
class RunView:
    """A graded run, as the comparison page needs it."""

    info: RunInfo
    metrics: RunMetrics
    items: Sequence[GradedItem]


def shown_status(run: RunListing, headlines: Sequence[Mapping[str, object]]) -> str:
    """The run's stored status, and what it hides: a run that finished asking but whose calls
    failed is not "complete" (its failed calls are never graded as wrong answers; `proctor run
    --retry-errors RUN` asks them again)."""
    failed = sum(int(h.get("failed", 0) or 0) for h in headlines)  # type: ignore[call-overload]
    if failed and run.status == "complete":
        return f"calls failed ({failed:,}): proctor run --retry-errors {run.run_id}"
    return run.status


def runs_html(
    runs: Sequence[RunListing],
    results_dir: str,
    scores: Mapping[str, Sequence[Mapping[str, object]]] | None = None,
) -> str:
    """The runs list; `scores` holds each run's headline per model (accuracy and interval)."""
    return render(
        "runs.html.j2",
        title="proctor · runs",
        viewer=True,
        results_dir=results_dir,
        runs=[
            {
                "run_id": r.run_id,
                "href": run_href(r.run_id),
                "samples": samples_href(r.run_id),
                "task": r.task,
                "created_at": r.created_at,
                "status": shown_status(r, (scores or {}).get(r.run_id, ())),
                "models": ", ".join(r.models),
                "n_samples": r.n_samples,
                "n_records": r.n_records,
                "scores": list((scores or {}).get(r.run_id, ())),
                "progress": run_href(r.run_id) + "/progress",
                "answers": run_href(r.run_id) + "/answers",
            }
            for r in runs
        ],
    )


def error_html(status: int, message: str) -> str:
    return render(
        "error.html.j2", title=f"proctor · {status}", viewer=True, status=status, message=message
    )


def model_pairs(a: RunView, b: RunView) -> list[tuple[str, str]]:
    """The models to set side by side: those in both runs; when each run has exactly one model
    (and they differ), those two."""
    names_a = [m.model for m in ranked(a.metrics)]
    names_b = {m.model for m in b.metrics.models}
    pairs = [(name, name) for name in names_a if name in names_b]
    if not pairs and len(a.metrics.models) == 1 and len(b.metrics.models) == 1:
        pairs = [(a.metrics.models[0].model, b.metrics.models[0].model)]
    return pairs


def _score_mark(score: float) -> str:
    """1 → "right", 0 → "wrong", a share of repeats → "67 % right"."""
    if score == 1.0:
        return "right"
    if score == 0.0:
        return "wrong"
    return f"{score * 100:.0f} % right"


def compare_html(a: RunView, b: RunView) -> str:
    """Two runs side by side: per model pair the accuracies, the change and the paired test's
    verdict (`proctor.report.compare.compare_runs`, the same as `proctor compare`), the change by
    category, and the items whose score flipped."""
    pairs = model_pairs(a, b)
    label_a, label_b = "run A", "run B"
    rows: list[dict[str, object]] = []
    bars: dict[tuple[str, str], svg.Estimate] = {}
    deltas: dict[tuple[str, str], svg.Estimate] = {}
    pair_names: list[str] = []
    categories: list[str] = []
    flipped: list[dict[str, object]] = []
    n_flips = 0
    for model_a, model_b in pairs:
        ma, mb = a.metrics.model(model_a), b.metrics.model(model_b)
        name = model_a if model_a == model_b else f"{model_a} → {model_b}"
        pair_names.append(name)
        bars[(name, label_a)] = overall(ma)
        bars[(name, label_b)] = overall(mb)
        sides = side_labels(model_a, model_b, a.info.run_id, b.info.run_id)
        c = compare_runs(
            a.items,
            b.items,
            Side(sides[0], model_a, a.info),
            Side(sides[1], model_b, b.info),
        )
        # B − A from the paired comparison itself (the items both answered), and its sentence
        # read the same way: the column and the verdict never show opposite signs.
        b_vs_a = c.paired.reversed()
        change = b_vs_a.difference if b_vs_a.n else None
        rows.append(
            {
                "model": name,
                "a": pct(ma.accuracy),
                "a_ci": interval(ma.ci_low, ma.ci_high),
                "b": pct(mb.accuracy),
                "b_ci": interval(mb.ci_low, mb.ci_high),
                "change": "—" if change is None else f"{change * 100:+.1f}",
                "change_class": "" if not change else ("delta-pos" if change > 0 else "delta-neg"),
                "n": c.paired.n,
                "a_only": b_vs_a.b_only,
                "b_only": b_vs_a.a_only,
                "p": format_p(c.paired.p) if c.paired.n else "—",
                "verdict": b_vs_a.verdict(),
                "worse": c.b_significantly_worse,
            }
        )
        for cat in slice_values([ma.by_category, mb.by_category]):
            if cat not in categories:
                categories.append(cat)
            ca, cb = ma.by_category.get(cat), mb.by_category.get(cat)
            if ca and cb and ca.accuracy is not None and cb.accuracy is not None:
                deltas[(name, cat)] = svg.Estimate(cb.accuracy - ca.accuracy)
        for kind, items in (("worse", c.regressions), ("better", c.improvements)):
            n_flips += len(items)
            for f in items:
                if len(flipped) < FLIPS_SHOWN:
                    flipped.append(
                        {
                            "model": name,
                            "kind": kind,
                            "sample_id": f.sample.id,
                            "input": f.sample.input,
                            "target": f.sample.target,
                            "a": f"{_score_mark(f.score_a)}: {f.answer_a}",
                            "b": f"{_score_mark(f.score_b)}: {f.answer_b}",
                        }
                    )
    charts: dict[str, object] = {"bars": None, "delta": None}
    if pairs:
        charts["bars"] = svg.grouped_bars(
            pair_names, [label_a, label_b], bars, label="accuracy, run A vs run B"
        )
        charts["delta"] = svg.heat_map(
            pair_names, categories, deltas, label="change in accuracy by category", delta=True
        )
    return render(
        "compare.html.j2",
        title=f"proctor · compare {a.info.run_id} with {b.info.run_id}",
        viewer=True,
        a={"info": a.info, "href": run_href(a.info.run_id)},
        b={"info": b.info, "href": run_href(b.info.run_id)},
        sides=[
            (label, value_a, value_b)
            for (label, value_a), (_, value_b) in zip(
                header_lines(a.info), header_lines(b.info), strict=True
            )
        ],
        same_paper=a.info.dataset_hash == b.info.dataset_hash,
        rows=rows,
        charts=charts,
        flips=flipped,
        n_flips=n_flips,
        flips_shown=FLIPS_SHOWN,
    )
