"""What `run` and `gate` leave for CI: `--junit FILE` (JUnit XML, written whole or not at all)
and, when GitHub Actions names a job summary file (`$GITHUB_STEP_SUMMARY`), the run's summary
or the gate's table appended to it. The renderers are `proctor.report.ci`'s."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.errors import StoreError
from proctor.report.atomic import write_text_atomic
from proctor.report.markdown import summary_markdown
from proctor.runs.state import EXIT_CALLS_FAILED, EXIT_INCOMPLETE, EXIT_OK

if TYPE_CHECKING:  # every run comes here; only `--junit` and `gate` need the XML writers
    from proctor.runs.gate import Gate
    from proctor.stats.run_statistics import RunStatistics

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def append_step_summary(markdown: str) -> Path | None:
    """Append to the job summary GitHub Actions names, if it names one; its path."""
    name = os.environ.get(STEP_SUMMARY, "").strip()
    if not name:
        return None
    path = Path(name)
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(markdown.rstrip("\n") + "\n\n")
    except OSError as e:
        raise StoreError(f"cannot append to ${STEP_SUMMARY} ({path}): {e.strerror or e}") from e
    return path


def run_ci_files(stats: RunStatistics, junit: Path | None) -> list[Path]:
    """The run's JUnit file (when asked) and its summary in the job summary (when set)."""
    written = [write_text_atomic(junit, _junit(stats))] if junit is not None else []
    summary = append_step_summary(summary_markdown(stats))
    return written + ([summary] if summary else [])


def _junit(stats: RunStatistics) -> str:
    from proctor.report.ci import run_junit  # the XML writer: --junit alone needs it

    return run_junit(stats)


def gate_ci_files(gate: Gate, junit: Path | None) -> list[Path]:
    """The gate's JUnit file (when asked) and its table in the job summary (when set)."""
    from proctor.report.ci import gate_junit, gate_markdown

    state_error = gate.line if gate.code in (EXIT_INCOMPLETE, EXIT_CALLS_FAILED) else None
    written = []
    if junit is not None:
        xml = gate_junit(gate.run_id, gate.rows, state_error)
        written.append(write_text_atomic(junit, xml))
    why_not = None if gate.code == EXIT_OK else gate.line or "a requirement failed"
    summary = append_step_summary(gate_markdown(gate.run_id, gate.rows, why_not))
    return written + ([summary] if summary else [])
