"""`proctor gate --policy release.toml RUN… [--baseline RUN…]`: parse and print; the decision is
`proctor.runs.policy`. Without runs, the policy file is only checked (exit 2 naming file, line
and field when it is wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from proctor.runs.state import EXIT_OK


def policy_gate(
    path: Path,
    runs: Sequence[str],
    baselines: Sequence[str],
    results_dir: Path,
    markdown: Path | None,
    allow_inconclusive: bool,
) -> None:
    from rich.table import Table
    from rich.text import Text

    from proctor.cli.console import SafeConsole
    from proctor.report.atomic import write_text_atomic
    from proctor.runs.policy import decide_policy
    from proctor.runs.policy_file import load_policy

    console = SafeConsole()
    policy = load_policy(path)
    if not runs:
        console.print(Text(f"policy {policy.name} is valid: {policy.summary()}"), soft_wrap=True)
        return
    verdict = decide_policy(
        results_dir, policy, runs, baselines, allow_inconclusive=allow_inconclusive
    )
    table = Table(title=f"Release policy {policy.name}")
    for column in ("task", "tier", "run", "check", "model", "value", "result", "effect", "note"):
        table.add_column(column, overflow="fold")
    for r in verdict.reasons:
        style = {"blocks": "bold red", "undecided": "bold yellow"}.get(r.effect, "")
        table.add_row(*(Text(x) for x in (r.task, r.tier, r.run, r.check, r.model, r.value)),
                      Text(r.result, style=style), Text(r.effect), Text(r.note))  # fmt: skip
    console.print(table)
    colour = {"GO": "green", "NO-GO": "red", "INCONCLUSIVE": "yellow"}[verdict.decision]
    console.print(Text(verdict.sentence(), style=f"bold {colour}"), soft_wrap=True)
    if markdown is not None:
        write_text_atomic(markdown, verdict.markdown())
        console.print(Text(f"wrote {markdown}"))
    if verdict.code != EXIT_OK:
        raise typer.Exit(verdict.code)
