"""The pages of `proctor view` that are not a run's report: the runs list and the comparison
of two runs. Pure: they get plain values and return HTML; the viewer reads the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from proctor.report.html import svg
from proctor.report.html.page import render
from proctor.report.text import header_lines, interval, pct
from proctor.stats.comparison import ComparedRuns, RunComparison
from proctor.stats.paired import format_p

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


def waiting_html(title: str, message: str, refresh_s: int) -> str:
    """A page that says what is being prepared, and reloads itself every `refresh_s` seconds."""
    return render(
        "error.html.j2", title=f"proctor · {title}", viewer=True, status=title, message=message,
        refresh=refresh_s,
    )  # fmt: skip


def _score_mark(score: float) -> str:
    """1 → "right", 0 → "wrong", a share of repeats → "67 % right"."""
    if score == 1.0:
        return "right"
    if score == 0.0:
        return "wrong"
    return f"{score * 100:.0f} % right"


def _pair_row(name: str, c: RunComparison) -> dict[str, object]:
    """One model pair's row: each side's accuracy on the paired items, B − A, the verdict."""
    sa, sb = c.side_a, c.side_b
    # B − A from the paired comparison itself (the items both answered), and its sentence read
    # the same way: the column and the verdict never show opposite signs.
    b_vs_a = c.paired.reversed()
    change = b_vs_a.difference if b_vs_a.n else None
    return {
        "model": name,
        "a": pct(sa.accuracy),
        "a_ci": interval(sa.ci_low, sa.ci_high),
        "b": pct(sb.accuracy),
        "b_ci": interval(sb.ci_low, sb.ci_high),
        "change": "—" if change is None else f"{change * 100:+.1f}",
        "change_class": "" if not change else ("delta-pos" if change > 0 else "delta-neg"),
        "n": c.paired.n,
        "a_only": b_vs_a.b_only,
        "b_only": b_vs_a.a_only,
        "p": format_p(c.paired.p) if c.paired.n else "—",
        "verdict": b_vs_a.verdict(),
        "worse": c.b_significantly_worse,
    }


def _flip_rows(name: str, c: RunComparison, room: int) -> list[dict[str, object]]:
    """Up to `room` of the pair's flipped items, regressions first."""
    rows: list[dict[str, object]] = []
    for kind, items in (("worse", c.regressions), ("better", c.improvements)):
        for f in items[: max(0, room - len(rows))]:
            rows.append(
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
    return rows


def compare_html(compared: ComparedRuns) -> str:
    """Two runs side by side (`proctor.stats.comparison`): per model pair each side's accuracy, the
    change and the paired test's verdict (the same as `proctor compare`), the change by
    category and the items whose score flipped — every number computed once, on the items both
    runs scored."""
    a, b = compared.a, compared.b
    label_a, label_b = "run A", "run B"
    rows: list[dict[str, object]] = []
    bars: dict[tuple[str, str], svg.Estimate] = {}
    deltas: dict[tuple[str, str], svg.Estimate] = {}
    pair_names: list[str] = []
    categories: list[str] = []
    flipped: list[dict[str, object]] = []
    n_flips = 0
    for pair in compared.pairs:
        name, c = pair.name, pair.comparison
        pair_names.append(name)
        sa, sb = c.side_a, c.side_b
        bars[(name, label_a)] = svg.Estimate(sa.accuracy, sa.ci_low, sa.ci_high)
        bars[(name, label_b)] = svg.Estimate(sb.accuracy, sb.ci_low, sb.ci_high)
        rows.append(_pair_row(name, c))
        for cat, moved in c.by_category.items():
            if cat not in categories:
                categories.append(cat)
            deltas[(name, cat)] = svg.Estimate(moved.change)
        n_flips += len(c.regressions) + len(c.improvements)
        flipped += _flip_rows(name, c, FLIPS_SHOWN - len(flipped))
    charts: dict[str, object] = {"bars": None, "delta": None}
    if compared.pairs:
        charts["bars"] = svg.grouped_bars(
            pair_names, [label_a, label_b], bars, label="accuracy, run A vs run B"
        )
        charts["delta"] = svg.heat_map(
            pair_names, categories, deltas, label="change in accuracy by category", delta=True
        )
    return render(
        "compare.html.j2",
        title=f"proctor · compare {a.run_id} with {b.run_id}",
        viewer=True,
        a={"info": a, "href": run_href(a.run_id)},
        b={"info": b, "href": run_href(b.run_id)},
        sides=[
            (label, value_a, value_b)
            for (label, value_a), (_, value_b) in zip(
                header_lines(a), header_lines(b), strict=True
            )
        ],
        same_paper=a.dataset_hash == b.dataset_hash,
        unpaired=[("run A", m) for m in compared.unpaired_a]
        + [("run B", m) for m in compared.unpaired_b],
        rows=rows,
        charts=charts,
        flips=flipped,
        n_flips=n_flips,
        flips_shown=FLIPS_SHOWN,
    )
