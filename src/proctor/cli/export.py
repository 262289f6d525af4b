"""`proctor export RUN --to inspect|lm-eval|jsonl -o PATH`: a stored run as other tools read it
(`proctor.runs.export`; the formats in `proctor.foreign`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir, RunRef, results_dir_of, terminal


class ExportTo(StrEnum):
    inspect = "inspect"
    lm_eval = "lm-eval"
    jsonl = "jsonl"


def export_cmd(
    run_ref: RunRef,
    to: Annotated[
        ExportTo,
        typer.Option(
            "--to",
            help="inspect: Inspect AI eval logs (a log folder, one log per model); lm-eval: "
            "lm-evaluation-harness's --output_path folder (results and samples files per "
            "model); jsonl: one JSON object per answer with its grade (one file).",
        ),
    ],
    out: Annotated[Path, typer.Option("--output", "-o", help="The folder or file to write.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Write a stored run for another harness's tools: Inspect's viewer, lm-eval's readers,
    any JSONL reader. Reads the stored answers and grades; asks and grades nothing."""
    from rich.text import Text

    from proctor.runs.export import export_run

    run_id, written = export_run(results_dir_of(run_ref, results_dir), run_ref, to.value, out)
    console = terminal()
    console.print(Text(f"run {run_id} exported as {to.value}: {len(written)} files"))
    for path in written:
        console.print(Text(f"  {path}"), soft_wrap=True)  # a path is never broken
