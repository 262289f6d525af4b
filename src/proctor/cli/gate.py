"""`proctor gate RUN`: check a stored run against quality requirements, for CI.

    proctor gate RUN --require "accuracy>=0.9" --require "kind=extraction:accuracy>=0.95"
    proctor gate RUN                              the requirements of the suite's config
    proctor gate RUN --baseline RUN_B             … and not significantly worse than RUN_B
    proctor gate latest                           the newest run in the store (for CI)

    proctor gate RUN --baseline RUN_B --margin 1pp   … and within one point of RUN_B
    proctor gate --policy release.toml RUN… [--baseline RUN…]   a release over several runs
    proctor gate --policy release.toml                          check the policy file only

A requirement holds when its interval's bound clears it ("accuracy>=0.9": the 95 % interval's
low end is at least 90 %), not its point estimate; `--rule point` (or `rule=point:` before one
requirement) reads the point estimate instead, and the table says so.

Exit codes: 0 when every requirement passes, 1 when any fails, 7 when none fails but some lack
the evidence to decide (INCONCLUSIVE, with the items that would decide it; 0 with
--allow-inconclusive), 2 on a usage or data error; 3 when the run is incomplete and 4 when calls
failed (these come first: a gate over the answers that came back says nothing of those that
did not).
Grading is redone purely from the stored records; judge verdicts are read again from the stored
judge replies; nothing is written and no model is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import AllowInconclusive, JunitOption, ResultsDir
from proctor.errors import ConfigError
from proctor.runs.state import EXIT_OK

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.runs.gate_items import GateRow

_JUDGE_METRICS = ("judge_mean", "judge_unscored")


def gate_cmd(
    runs: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="RUN...",
            help="Run id, prefix, folder, or latest; with --policy, every run of the release.",
        ),
    ] = None,
    require: Annotated[
        list[str] | None,
        typer.Option(
            "--require",
            help='A requirement, e.g. "accuracy>=0.9" or "kind=extraction:accuracy>=0.95"; '
            "repeat for several. Default: the [gate] of the suite's config.",
        ),
    ] = None,
    baseline: Annotated[
        list[str] | None,
        typer.Option(
            help="Also require: not significantly worse than this run (with --policy: the "
            "baseline runs, repeat)."
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", "-m", help="Check only this model of the run.")
    ] = None,
    judge: Annotated[
        str | None, typer.Option(help="Whose verdicts judge_mean reads (default: the only one).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Read the requirements from this suite config's [gate].")
    ] = None,
    alpha: Annotated[
        float | None, typer.Option(help="Significance level for --baseline (default 0.05).")
    ] = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
    rule: Annotated[
        str | None,
        typer.Option(help="bound (default: the interval must clear it) or point (the estimate)."),
    ] = None,
    margin: Annotated[
        str | None,
        typer.Option(help="With --baseline: require B within this many points of it (1pp)."),
    ] = None,
    allow_inconclusive: AllowInconclusive = False,
    strict: Annotated[
        bool,
        typer.Option(help="Also fail a model with more than 5 % of its replies cut off."),
    ] = False,
    policy: Annotated[
        Path | None,
        typer.Option(help="A release policy (TOML) over the runs: GO / NO-GO / INCONCLUSIVE."),
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="With --policy: also write the decision as Markdown.")
    ] = None,
    junit: JunitOption = None,
) -> None:
    """Check a run against requirements; exit 1 when any fails (for CI), 0 when all pass, 7 when
    some lack the evidence to decide.

    \f
    (A typer command: each parameter is one option of `proctor gate`, hence their number
    and the length of its signature; the body is short.)
    """
    from proctor.cli.console import SafeConsole, plain
    from proctor.runs.gate import GateAsk, gate_in, read_margin, read_rule

    console = SafeConsole()
    if policy is not None:
        from proctor.cli.policy import policy_gate

        policy_gate(policy, runs or [], baseline or [], results_dir, markdown, allow_inconclusive)
        return
    if not runs or len(runs) > 1 or (baseline and len(baseline) > 1):
        raise ConfigError("gate checks one run against one --baseline (several: use --policy)")
    run_ref, base = runs[0], (baseline[0] if baseline else None)
    if margin is not None and base is None:
        raise ConfigError("--margin compares with a baseline: give --baseline RUN")
    ask = GateAsk(
        tuple(require or ()), base, model, judge, config, alpha, read_rule(rule),
        read_margin(margin), allow_inconclusive, strict,
    )  # fmt: skip
    gate = gate_in(results_dir, run_ref, ask)
    from proctor.runs.ci import gate_ci_files

    gate_ci_files(gate, junit)
    for warning in gate.warnings:
        console.print(f"[yellow]warning:[/] {plain(warning)}")
    if gate.rows:
        _print(console, gate.run_id, gate.rows)
    for problem in gate.problems:
        console.print(f"  {plain(problem)}")
    if gate.line is not None:
        console.print(gate.line, soft_wrap=True)
    if gate.code != EXIT_OK:
        raise typer.Exit(gate.code)
    if gate.line is None:
        console.print(f"[green]gate passed:[/] {len(gate.rows)} checks")


def _print(console: Console, run_id: str, rows: Sequence[GateRow]) -> None:
    from rich.table import Table
    from rich.text import Text

    from proctor.report.text import gate_value

    table = Table(title=f"Gate for run {run_id}")
    table.add_column("requirement", overflow="fold")
    table.add_column("model", overflow="fold")
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("result", no_wrap=True)
    table.add_column("note", overflow="fold")
    for row in rows:
        style = "green" if row.passed else "bold yellow" if row.inconclusive else "bold red"
        result = Text(row.result, style=style)
        value = gate_value(row)
        table.add_row(
            Text(row.requirement), Text(row.model), value, str(row.n), result, Text(row.note)
        )
    console.print(table)
