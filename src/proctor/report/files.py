"""The files a run leaves behind: results.json, samples.csv, summary.md, report.html."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from proctor.report.atomic import write_atomic, write_text_atomic
from proctor.report.html import ReportExtras, report_html
from proctor.report.markdown import summary_markdown
from proctor.report.results_json import results_json
from proctor.report.samples_csv import write_samples_csv
from proctor.stats.metrics import RunMetrics
from proctor.types import GradedItem, RunInfo


def write_run_files(
    run_dir: Path,
    info: RunInfo,
    metrics: RunMetrics,
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
    *,
    extras: ReportExtras | None = None,
) -> list[Path]:
    """Write the report files into `run_dir`, each atomically; return their paths.

    `rules` maps a rule name to its one-sentence explanation; `extras` feeds the HTML report's
    optional sections (prompts, model sizes, a calculator run, taxonomy, paired comparisons).
    """
    models = [m.model for m in metrics.models]
    return [
        write_text_atomic(run_dir / "results.json", results_json(info, metrics)),
        write_atomic(
            run_dir / "samples.csv", lambda out: write_samples_csv(out, items, rules, models)
        ),
        write_text_atomic(run_dir / "summary.md", summary_markdown(info, metrics, items, rules)),
        write_text_atomic(
            run_dir / "report.html", report_html(info, metrics, items, rules, extras)
        ),
    ]
