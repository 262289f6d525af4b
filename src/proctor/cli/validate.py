"""`proctor validate FILE`: check a set file (`proctor run --config FILE`) before it costs
anything. The checking is `proctor.runs.set_config.check_set_file`'s; this prints it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir, terminal


def validate_cmd(
    file: Annotated[Path, typer.Argument(help="The set file (TOML) to check.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Check a set file without calling anything: unknown keys, bad values, unknown tasks or
    models, papers that cannot be read. Exits 0 when `proctor run --config FILE` would start,
    2 naming the file, the line and the field when it would not."""
    from proctor.cli.console import plain
    from proctor.runs.set_config import check_set_file

    written, plans = check_set_file(file, results_dir)
    calls = sum(len(p.samples) * len(p.models) * (written.samples or 1) for p in plans)
    name = f"set {written.name!r}: " if written.name else ""
    terminal().print(
        f"{plain(file)}: ok. {plain(name)}{len(plans)} runs "
        f"({len(written.models)} models), {calls:,} calls; nothing was called"
    )
