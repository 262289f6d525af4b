"""`proctor validate FILE [--kind set|policy]`: check a set file (`proctor run --config FILE`)
or a release policy (`proctor gate --policy FILE`) before it costs anything. Which one is told by
`--kind`, else by the file's tables (`proctor.runs.policy_file.is_policy_file`); the checking is
`check_set_file`'s or `load_policy`'s; this prints it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir, terminal
from proctor.errors import ConfigError


def validate_cmd(
    file: Annotated[Path, typer.Argument(help="The set file or policy file (TOML) to check.")],
    results_dir: ResultsDir = DEFAULT_RESULTS,
    kind: Annotated[
        str | None,
        typer.Option(help="set or policy (default: told by the file's tables)."),
    ] = None,
) -> None:
    """Check a set file or a release policy without calling anything: unknown keys, bad values,
    unknown tasks or models, papers that cannot be read. Exits 0 when `proctor run --config FILE`
    (or `proctor gate --policy FILE`) would start, 2 naming the file, the line and the field when
    it would not."""
    from proctor.cli.console import plain
    from proctor.runs.policy_file import is_policy_file, load_policy
    from proctor.runs.set_config import check_set_file

    if kind not in (None, "set", "policy"):
        raise ConfigError(f"--kind must be set or policy, got {kind!r}")
    if kind == "policy" or (kind is None and is_policy_file(file)):
        policy = load_policy(file)
        terminal().print(
            f"{plain(file)}: ok. policy {plain(repr(policy.name))}: {len(policy.tasks)} tasks: "
            f"{plain(policy.summary())}"
        )
        return

    written, plans = check_set_file(file, results_dir)
    calls = sum(len(p.samples) * len(p.models) * (written.samples or 1) for p in plans)
    name = f"set {written.name!r}: " if written.name else ""
    most = max(len(p.models) for p in plans)
    matrix = f", up to {most} variants a run" if most > len(written.models) else ""
    terminal().print(
        f"{plain(file)}: ok. {plain(name)}{len(plans)} runs "
        f"({len(written.models)} models{matrix}), {calls:,} calls; nothing was called"
    )
