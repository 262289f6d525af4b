"""`proctor review export|import`: people's verdicts on a run's replies, as CSV.

    proctor review export RUN -o verdicts.csv    every verdict given on the run, in stored order
    proctor review import RUN verdicts.csv       bring verdicts given outside back (all or none)

A row whose reply_hash is not the stored reply's content hash is refused (exit 2) naming the
file, line and field, and nothing is stored; importing the same file again adds nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir, RunRef, results_dir_of, terminal
from proctor.cli.plain_help import command_group
from proctor.errors import ConfigError

review_app = command_group(
    help="People's verdicts on a run's replies: export and import them as CSV.",
    no_args_is_help=True,
)

def _store_dir(run_ref: str, results_dir: Path) -> Path:
    folder = results_dir_of(run_ref, results_dir)
    if not (folder / "proctor.db").exists():
        raise ConfigError(f"no run store in {folder} (use --results-dir)")
    return folder


@review_app.command("export")
def export_cmd(
    run_ref: RunRef,
    output: Annotated[Path, typer.Option("--output", "-o", help="The CSV file to write.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Write every verdict people gave on the run to a CSV."""
    from proctor.runs.review import export_file
    from proctor.store import RunStore

    with RunStore.open(_store_dir(run_ref, results_dir)) as store:
        run_id = store.resolve(run_ref)
        count = export_file(store, run_id, output)
    terminal().print(f"run {run_id}: {count} verdicts written to {output}", markup=False)


@review_app.command("import")
def import_cmd(
    run_ref: RunRef,
    path: Annotated[Path, typer.Argument(help="A CSV written by `proctor review export`.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Store the verdicts of a CSV on the run (every row checked first; all or none)."""
    from proctor.runs.review import import_file
    from proctor.store import RunStore

    with RunStore.open(_store_dir(run_ref, results_dir)) as store:
        run_id = store.resolve(run_ref)
        read, added = import_file(store, run_id, path)
    terminal().print(f"run {run_id}: {read} verdicts read from {path}, {added} new", markup=False)
