"""`proctor audit [TASK ...]`: grade the hand-labelled audit sets and say how often the grader is
wrong about them: false correct and false wrong, each with a 95 % interval, and the classes
(forms) of every disagreement. No model is called.

    proctor audit                     every task that has an audit set
    proctor audit math500 gsm8k       these tasks
    proctor audit --set my.jsonl      your own labelled replies (same format)
    proctor audit --record FILE       also write the figures (what reports quote) as JSON

Exit codes: 0 when no labelled reply is graded falsely correct, 1 when one is, 2 on a usage or
data error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor.errors import ConfigError
from proctor.runs.state import EXIT_CHECK_FAILED

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.audit.grader_audit import AuditResult
    from proctor.audit.labelled_sets import AuditItem

_EXCERPT = 70


def _pct(k: int, n: int, interval: tuple[float, float]) -> str:
    if n == 0:
        return "0 of 0"
    low, high = interval
    return f"{k} of {n} ({k / n:.1%}, 95 % interval {low:.1%}–{high:.1%})"


def audit_cmd(
    tasks: Annotated[
        list[str] | None,
        typer.Argument(metavar="[TASK]...", help="Tasks to audit (default: every audited task)."),
    ] = None,
    audit_set: Annotated[
        list[Path] | None,
        typer.Option("--set", help="An audit file of your own (repeat for several)."),
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Write the figures as JSON (builtin/audit/audited.json).")
    ] = None,
) -> None:
    """Grade the hand-labelled audit sets; print false correct / false wrong with intervals."""
    from rich.text import Text

    from proctor.audit.grader_audit import AUDIT_SOURCES, AuditSource, audit, register_audit_source
    from proctor.audit.labelled_sets import load_audit_file
    from proctor.cli.console import SafeConsole

    for path in audit_set or ():
        items = load_audit_file(path)
        for task in sorted({item.task for item in items}):
            register_audit_source(AuditSource(task, _items_of(items, task)))
            tasks = [*(tasks or []), task]
    names = list(dict.fromkeys(tasks or sorted(AUDIT_SOURCES)))
    if not names:
        raise ConfigError("no audit sets to grade")
    results = [audit(name) for name in names]
    console = SafeConsole(highlight=False)
    _print_table(console, results)
    for result in results:
        _print_disagreements(console, result)
    if record is not None:
        _write_record(record, results)
        console.print(Text(f"recorded in {record}"))
    if any(r.false_correct for r in results):
        raise typer.Exit(EXIT_CHECK_FAILED)


def _items_of(items: Sequence[AuditItem], task: str) -> Callable[[], Sequence[AuditItem]]:
    mine = [item for item in items if item.task == task]
    return lambda: mine


def _print_table(console: Console, results: list[AuditResult]) -> None:
    from rich.text import Text

    console.print(Text("Grader audit: hand-labelled replies graded by the current rules", "bold"))
    for r in results:
        console.print(
            Text(f"{r.task} ({r.grader_version}): {r.labelled} labelled replies, {r.agree} agree")
        )
        counts = (
            ("false correct", r.false_correct, r.labelled_not_correct, "labelled not correct",
             r.false_correct_interval),
            ("false wrong", r.false_wrong, r.labelled_correct, "labelled correct",
             r.false_wrong_interval),
        )  # fmt: skip
        for name, k, n, of, interval in counts:
            console.print(Text(f"  {name:<14}{_pct(k, n, interval)} {of}"))
        console.print(Text(f"  {'unscored':<14}{r.unscored}"))
        if r.languages:
            said = ", ".join(f"{lang} {agree}/{n}" for lang, n, agree in r.languages)
            console.print(Text(f"  {'languages':<14}{said} agree"))
    console.print(
        "false correct: a reply labelled not correct graded correct; false wrong: one labelled"
        " correct graded anything else (unscored counted apart)."
    )
    audited = sorted({lang for r in results for lang, _, _ in r.languages})
    console.print(Text(f"languages audited: {', '.join(audited) or 'none'}"))


def _print_disagreements(console: Console, result: AuditResult) -> None:
    from rich.text import Text

    from proctor.report.text import one_line

    if not result.disagreements:
        return
    classes = "; ".join(
        f"{kind.replace('_', ' ')}: " + ", ".join(f"{form} {n}" for form, n in forms.items())
        for kind, forms in result.classes().items()
    )
    console.print(Text(f"{result.task}: classes of disagreement — {classes}", style="bold"))
    for d in result.disagreements:
        line = (
            f"  {d.kind.replace('_', ' ')}  {d.item.id}  [{d.item.form}]  labelled"
            f" {d.item.label} ({d.item.reason}); graded {d.score.outcome} by {d.score.rule}:"
            f" {one_line(d.item.reply, _EXCERPT)!r}"
        )
        console.print(Text(line))


def _write_record(path: Path, results: list[AuditResult]) -> None:
    from proctor.report.atomic import write_text_atomic

    document = {
        "about": "The last `proctor audit --record` of each audit set; reports quote it.",
        "tasks": {
            r.task: {
                "grader_version": r.grader_version,
                "labelled": r.labelled,
                "labelled_correct": r.labelled_correct,
                "false_correct": r.false_correct,
                "false_wrong": r.false_wrong,
                "unscored": r.unscored,
                "classes": r.classes(),
                "languages": {lang: {"labelled": n, "agree": a} for lang, n, a in r.languages},
            }
            for r in results
        },
    }
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
