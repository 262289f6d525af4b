"""Pure reports over metrics and graded items: terminal, results.json, samples.csv, summary.md."""

from proctor.report.files import write_run_files
from proctor.report.terminal import render_report

__all__ = ["render_report", "write_run_files"]
