"""`proctor list runs` in a terminal: each run on one line, then each of its models with its
headline score, readable at 80 columns.

A run's models show by their short labels (`short_names`, as in the run's report), the dropped
part said once on the run's second line; nothing is cut: a value too long for its column folds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.table import Table
from rich.text import Text

from proctor.report.text import NONE, interval, name_pattern, pct, short_names
from proctor.stats.metrics import cell


@dataclass(frozen=True)
class ModelLine:
    model: str
    n_answers: int
    correct: int
    n_scored: int
    graded: bool
    turns: tuple[str, str] | None = None
    """A dialogue's or workflow's stored grade: (its headline score, its outcome)."""


@dataclass(frozen=True)
class RunLine:
    run_id: str
    task: str
    created_at: str
    status: str
    n_samples: int
    models: tuple[ModelLine, ...]


def runs_table(title: str, runs: Sequence[RunLine]) -> Table:
    table = Table(
        title=Text(title),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("run / model", overflow="fold")
    table.add_column("accuracy", justify="right", no_wrap=True)
    table.add_column("95 % CI", justify="right", no_wrap=True)
    table.add_column("answers", justify="right", no_wrap=True)
    for i, run in enumerate(runs):
        names = [m.model for m in run.models]
        labels, pattern = short_names(names), name_pattern(names)
        about = f"  {run.task} · {run.n_samples} items · {run.created_at[:10]}"
        answers = str(sum(m.n_answers for m in run.models))
        # the status sits in the interval's column: the first column keeps the width it needs
        table.add_row(Text(run.run_id, style="bold"), Text(""), Text(run.status), Text(answers))
        table.add_row(Text(about, style="dim"))
        if pattern is not None:
            table.add_row(Text(f"  {pattern}", style="dim"))
        for m in run.models:
            score = cell(m.correct, m.n_scored)
            if m.turns is not None:
                headline, outcome = m.turns
            else:
                headline = pct(score.accuracy) if m.graded else NONE
                outcome = interval(score.ci_low, score.ci_high) if m.graded else "not graded"
            table.add_row(
                Text("  " + labels[m.model]),
                Text(headline),
                Text(outcome),
                Text(str(m.n_answers)),
                end_section=i < len(runs) - 1 and m is run.models[-1],
            )
    return table
