"""Pure reports over metrics and graded items: terminal, results.json, samples.csv, summary.md."""

from typing import TYPE_CHECKING

from proctor._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from proctor.report.files import write_run_files
    from proctor.report.terminal import render_report

__all__ = ["render_report", "write_run_files"]

__getattr__ = lazy_exports(
    __name__,
    {
        "write_run_files": ".files",
        "render_report": ".terminal",
    },
)
