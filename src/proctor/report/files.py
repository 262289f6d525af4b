"""The files a run leaves behind: results.json, samples.csv, summary.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from proctor.report.atomic import write_text_atomic
from proctor.report.markdown import summary_markdown
from proctor.report.results_json import results_json
from proctor.report.samples_csv import samples_csv
from proctor.stats.metrics import RunMetrics
from proctor.types import GradedItem, RunInfo


def write_run_files(
    run_dir: Path,
    info: RunInfo,
    metrics: RunMetrics,
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
) -> list[Path]:
    """Write the three report files into `run_dir`, each atomically; return their paths.

    `rules` maps a rule name to its one-sentence explanation.
    """
    models = [m.model for m in metrics.models]
    return [
        write_text_atomic(run_dir / "results.json", results_json(info, metrics)),
        write_text_atomic(run_dir / "samples.csv", samples_csv(items, rules, models)),
        write_text_atomic(run_dir / "summary.md", summary_markdown(info, metrics, items, rules)),
    ]
