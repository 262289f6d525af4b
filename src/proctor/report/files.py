"""The files a run leaves behind: results.json, samples.csv, summary.md, report.html."""

from __future__ import annotations

from pathlib import Path

from proctor.report.atomic import write_atomic, write_text_atomic
from proctor.report.html import report_html
from proctor.report.markdown import summary_markdown
from proctor.report.results_json import results_json
from proctor.report.samples_csv import write_samples_csv
from proctor.stats.run_statistics import RunStatistics


def write_run_files(run_dir: Path, stats: RunStatistics) -> list[Path]:
    """Write the report files into `run_dir`, each atomically and each a pure function of the
    run's statistics; return their paths."""
    models = list(stats.models)
    human = None if stats.human is None else stats.human.grades
    return [
        write_text_atomic(run_dir / "results.json", results_json(stats)),
        write_atomic(
            run_dir / "samples.csv",
            lambda out: write_samples_csv(out, stats.items, stats.task.rules, models, human),
        ),
        write_text_atomic(run_dir / "summary.md", summary_markdown(stats)),
        write_text_atomic(run_dir / "report.html", report_html(stats)),
    ]
