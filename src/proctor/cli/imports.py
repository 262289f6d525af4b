"""`proctor import lm-eval|inspect PATH`: another harness's run, re-graded by proctor.

    proctor import lm-eval out/MODEL/samples_gsm8k_DATE.jsonl     lm-eval --log_samples output
    proctor import inspect logs/DATE_gsm8k_ID.json                Inspect AI eval log (.json/.eval)
        [--task gsm8k] [--model NAME] [--results results_DATE.json] [-r DIR]

Makes a complete run whose records are their raw model outputs and whose grades are proctor's,
with their verdicts kept as a second grader; prints the accuracy they reported beside the one
their own verdicts give (they must agree), then every item where proctor's verdict differs from
theirs, and writes the same to `import_diff.json` in the run folder. A file that cannot be read
is refused (exit 2) naming the file, line and field, and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir
from proctor.cli.plain_help import command_group

if TYPE_CHECKING:
    from proctor.foreign.run import ForeignRun

_EXCERPT = 90

import_app = command_group(
    help="Bring another harness's run into the store and re-grade it.", no_args_is_help=True
)

TaskOption = Annotated[
    str | None,
    typer.Option(help="The proctor task that grades the answers (default: from their task)."),
]
ModelOption = Annotated[
    str | None, typer.Option(help="The model's name in proctor (default: HARNESS:THEIR_NAME).")
]


@import_app.command("lm-eval")
def lm_eval_cmd(
    path: Annotated[Path, typer.Argument(help="lm-eval's samples_<task>_<date>.jsonl.")],
    results: Annotated[
        Path | None,
        typer.Option(help="Its results_<date>.json (default: the one beside the samples)."),
    ] = None,
    task: TaskOption = None,
    model: ModelOption = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Import lm-evaluation-harness's --log_samples output (0.4.x)."""
    from proctor.foreign.lm_eval import read_lm_eval

    _import(read_lm_eval(path, results), task, model, results_dir)


@import_app.command("inspect")
def inspect_cmd(
    path: Annotated[Path, typer.Argument(help="Inspect AI's eval log, .json or .eval.")],
    task: TaskOption = None,
    model: ModelOption = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Import an Inspect AI eval log (log format 2)."""
    from proctor.foreign.inspect_log import read_inspect

    _import(read_inspect(path), task, model, results_dir)


def _excerpt(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= _EXCERPT else "…" + one[-(_EXCERPT - 1) :]


def _import(foreign: ForeignRun, task: str | None, model: str | None, results_dir: Path) -> None:
    from rich.text import Text

    from proctor.cli.console import SafeConsole
    from proctor.runs.imported import import_run

    console = SafeConsole(highlight=False)
    outcome = import_run(results_dir, foreign, task_name=task, model=model)
    harness = f"{foreign.harness} {foreign.harness_version}".strip()
    console.print(
        Text(
            f"imported {outcome.answers} answers of {outcome.model} from {harness} (their task "
            f"{foreign.their_task!r}) as run {outcome.run_id}, graded by proctor's {outcome.task}"
        )
    )
    for note in foreign.notes:
        console.print(Text(f"  note: {note}"))
    for r in outcome.reproduced:
        got = "—" if r.from_verdicts is None else f"{r.from_verdicts:.6g}"
        said = "not in the log" if r.reported is None else f"{r.reported:.6g}"
        check = ""
        if r.reported is not None and r.from_verdicts is not None:
            check = " (the same)" if r.reported == r.from_verdicts else " (DIFFERENT)"
        line = f"  {r.grader}: they reported {said}; their {r.credited} verdicts give {got}"
        console.print(Text(line + check))
    both = outcome.agree + len(outcome.differences)
    console.print(
        Text(
            f"proctor vs {outcome.grader}: {outcome.agree} of {both} answers graded alike, "
            f"{len(outcome.differences)} differ" + (":" if outcome.differences else ".")
        )
    )
    rows = []
    for d in outcome.differences:
        where = d.sample_id + (f" #{d.epoch}" if d.epoch else "")
        theirs = f"{d.theirs.outcome} (took {d.theirs.extracted!r})"
        ours = f"{d.ours.outcome} ({d.ours.rule}, took {d.ours.extracted!r})"
        console.print(Text(f"  {where}: theirs {theirs} · proctor {ours}  {_excerpt(d.text)!r}"))
        rows.append(
            {
                "sample_id": d.sample_id,
                "epoch": d.epoch,
                "theirs": {
                    "outcome": d.theirs.outcome,
                    "value": d.theirs.value,
                    "extracted": d.theirs.extracted,
                },
                "proctor": {
                    "outcome": d.ours.outcome,
                    "rule": d.ours.rule,
                    "extracted": d.ours.extracted,
                    "explanation": d.ours.explanation,
                },
                "reply_excerpt": _excerpt(d.text),
            }
        )
    from proctor.report.atomic import write_text_atomic

    document = {
        "run_id": outcome.run_id,
        "harness": foreign.harness,
        "harness_version": foreign.harness_version,
        "their_task": foreign.their_task,
        "source": foreign.source,
        "their_grader": outcome.grader,
        "proctor_task": outcome.task,
        "answers_compared": both,
        "agree": outcome.agree,
        "reproduced": [r.__dict__ for r in outcome.reproduced],
        "differences": rows,
    }
    path = outcome.run_dir / "import_diff.json"
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    console.print(
        Text(
            f"  {path}\n`proctor score {outcome.run_id} --diff` re-grades it against their "
            f"verdicts; `proctor compare {outcome.run_id} --imported` gives the paired verdict"
        )
    )
