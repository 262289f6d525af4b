"""`proctor leaderboard [SET | RUN …]`: models × tasks of the results folder's runs. The runs are
chosen and read in `proctor.runs.leaderboard`, the board is built in `proctor.stats.leaderboard`
and formatted in `proctor.report.leaderboard`; this parses and prints."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import PricesOption, ResultsDir
from proctor.errors import ProctorError


def leaderboard_cmd(
    refs: Annotated[
        list[str] | None,
        typer.Argument(help="Sets or runs to rank (default: every run).", show_default=False),
    ] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only this task.")] = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", "-m", help="Only this model.")
    ] = None,
    since: Annotated[str | None, typer.Option(help="Runs from this date (2026-12-01).")] = None,
    until: Annotated[str | None, typer.Option(help="Runs up to this date.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the board as JSON.")] = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown.")] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the board as a self-contained HTML page here."),
    ] = None,
    prices: PricesOption = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Rank models on tasks: each task's accuracy with its interval, a mean over the tasks with
    its interval, whether each model differs significantly from the next (paired, Holm-
    adjusted), tokens and cost. By default the newest complete run per model, task and grader
    version; what is missing or incomplete is shown, never skipped."""
    from proctor.report.leaderboard import markdown, terminal_lines
    from proctor.runs.board_files import board_json
    from proctor.runs.costs import read_prices
    from proctor.runs.leaderboard import BoardFilter, read_leaderboard

    if as_json and as_markdown:
        raise typer.BadParameter("use either --json or --markdown")
    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    where = BoardFilter(tuple(task or ()), tuple(model or ()), since, until)
    reading = read_leaderboard(results_dir, refs or (), where, read_prices(prices))
    if html is not None:
        from proctor.runs.board_files import write_board_html

        written = write_board_html(reading, html, results_dir, " ".join(refs or ()))
        typer.echo(f"wrote {written}", err=True)
    if as_json:
        typer.echo(board_json(reading), nl=False)
    elif as_markdown:
        typer.echo(markdown(reading.board, reading.notes), nl=False)
    else:
        for line in terminal_lines(reading.board, reading.notes):
            typer.echo(line)
