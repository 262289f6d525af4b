"""`proctor compare`: two models on the same items, with a verdict fit for CI.

    proctor compare RUN_A RUN_B                 the (single) model of each run; A is the baseline
    proctor compare RUN_A RUN_B --models X Y    model X of run A against model Y of run B
    proctor compare RUN --models A B            two models of one run
    proctor compare RUN                         the two models of a run that has two

    proctor compare RUN_A RUN_B --margin 1pp    is B within one point of A? (a release verdict)

Exit codes: 0 when B is not significantly worse than A (better, or not distinguishable);
1 when B is significantly worse (a regression, for CI); 2 on a usage or data error, including
"no item was scored on both sides" (e.g. every call of one side failed).
With --margin: 0 for SUPERIOR, NON-INFERIOR and EQUIVALENT, 1 for INFERIOR, 7 for INCONCLUSIVE
(0 with --allow-inconclusive). The computing is `proctor.runs.compare`; this file parses and
prints.
Both sides are read with their stored grades (`proctor score RUN` grades again); nothing is
written to the store and no model is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import AllowInconclusive, ResultsDir
from proctor.runs.state import EXIT_OK

if TYPE_CHECKING:
    from rich.console import Console


def compare_cmd(
    run_a: Annotated[
        str, typer.Argument(metavar="RUN_A", help="Baseline run: id, prefix or folder.")
    ],
    run_b: Annotated[
        str | None,
        typer.Argument(metavar="RUN_B", help="Candidate run (omit to compare within RUN_A)."),
    ] = None,
    models: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--models",
            help="Model of A, then model of B (exact name or a unique part of one).",
        ),
    ] = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
    confidence: Annotated[float, typer.Option(help="Interval confidence.")] = 0.95,
    alpha: Annotated[float, typer.Option(help="Significance level of the test.")] = 0.05,
    power: Annotated[float, typer.Option(help="Power for the items-needed estimate.")] = 0.8,
    detect: Annotated[
        float | None,
        typer.Option(help="Difference in points to size the items-needed estimate for."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 10_000,
    show: Annotated[int, typer.Option(help="Flipped items to list per direction.")] = 20,
    markdown: Annotated[
        Path | None, typer.Option(help="Also write the comparison as Markdown to this file.")
    ] = None,
    imported: Annotated[
        bool,
        typer.Option(
            "--imported",
            help="An imported run: its harness's verdicts (A) against proctor's grades (B).",
        ),
    ] = False,
    grader: Annotated[
        str | None,
        typer.Option(help="With --imported: which of their graders (default: the first)."),
    ] = None,
    margin: Annotated[
        str | None,
        typer.Option(
            help="Practical margin in points (1pp): SUPERIOR / NON-INFERIOR / EQUIVALENT / "
            "INFERIOR / INCONCLUSIVE from the paired interval of B − A."
        ),
    ] = None,
    allow_inconclusive: AllowInconclusive = False,
) -> None:
    """Compare two models on the same items: flipped items and whether the difference is real.

    Exits 1 when B is significantly worse than A, 0 otherwise, 2 on errors. With --margin, a
    release verdict: 0 for SUPERIOR, NON-INFERIOR and EQUIVALENT, 1 for INFERIOR, 7 for
    INCONCLUSIVE.

    \f
    (A typer command: each parameter is one option of `proctor compare`, hence their number
    and the length of its signature; the body is short.)
    """
    from proctor.cli.console import SafeConsole
    from proctor.report.atomic import write_text_atomic
    from proctor.report.compare import comparison_markdown, render_comparison
    from proctor.runs.compare import CompareAsk, compare_exit, compare_stored

    _check_options(confidence, alpha, power, detect, resamples, show)
    ask = CompareAsk(
        run_a, run_b, results_dir, models, confidence=confidence, alpha=alpha, power=power,
        detect=detect, resamples=resamples, seed=seed, imported=imported, grader=grader,
        margin=margin,
    )  # fmt: skip
    comparison = compare_stored(ask)
    console = SafeConsole()
    render_comparison(comparison, console, show=show)
    if markdown is not None:
        write_text_atomic(markdown, comparison_markdown(comparison, show=show))
        console.print(f"wrote {markdown}")
    code = compare_exit(comparison, allow_inconclusive=allow_inconclusive)
    if comparison.margin is not None:
        _print_margin_exit(console, comparison.margin.verdict, code)
    if code != EXIT_OK:
        raise typer.Exit(code)


def _print_margin_exit(console: Console, verdict: str, code: int) -> None:
    if verdict == "INCONCLUSIVE":
        how = "exit 0 (--allow-inconclusive)" if code == EXIT_OK else f"exit {code}"
        console.print(f"[yellow]inconclusive:[/] not enough evidence to decide; {how}")


def _check_options(
    confidence: float, alpha: float, power: float, detect: float | None, resamples: int, show: int
) -> None:
    for name, value in (("--confidence", confidence), ("--alpha", alpha), ("--power", power)):
        if not 0.0 < value < 1.0:
            raise typer.BadParameter(f"{name} must be between 0 and 1, got {value}")
    if detect is not None and not 0.0 < detect <= 100.0:
        raise typer.BadParameter(f"--detect is in points, between 0 and 100, got {detect}")
    if resamples < 100:
        raise typer.BadParameter("--resamples must be at least 100")
    if show < 0:
        raise typer.BadParameter("--show must not be negative")
