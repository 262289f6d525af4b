"""`proctor judge RUN --judge MODEL`: a judge model grades a stored run's answers.

    proctor judge RUN --judge local                     every answer on the 1-10 rubric
    proctor judge RUN --judge M --kind rewrite          only the rewrite cases
    proctor judge RUN --judge M --pairwise              the run's two models (or its one model
                                                        against the standard answer), both orders
    proctor judge RUN --judge M --pairwise --models A B
    proctor judge RUN --judge M --against LABELS.csv    validate the judge against human verdicts
        [--pairwise] [--repeats 3 --temperature 0.7] [--pass-score 6]

Verdicts already stored are not asked again; every raw judge reply is stored, and `proctor score`
reads them again without calling the judge.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.keys import ApiKeyEnv
from proctor.cli.options import Concurrency, RequestTimeout, ResultsDir, RunRef

if TYPE_CHECKING:  # kept out of `proctor --help`'s imports
    from rich.console import Console

    from proctor.runs.judge import JudgePlan
    from proctor.runs.judge_report import Judged, JudgeTarget


def judge_cmd(
    run_ref: RunRef,
    judge: Annotated[
        str, typer.Option("--judge", help="Judge model string (any provider, local included).")
    ],
    pairwise: Annotated[
        bool, typer.Option("--pairwise", help="Compare two answers, asked in both orders.")
    ] = False,
    models: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--models", help="The two sides of --pairwise ('reference': the standard answer)."
        ),
    ] = None,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", help="Judge only this kind; repeat for several.")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Judge reply length limit (default: the suite's, else 256).")
    ] = None,
    parse_retries: Annotated[
        int, typer.Option(help="Times a reply without a valid verdict is asked again.")
    ] = 2,
    timeout: RequestTimeout = 120.0,
    concurrency: Concurrency = None,
    api_key_env: ApiKeyEnv = None,
    against: Annotated[
        Path | None,
        typer.Option(
            help="Human verdicts (CSV: id, label[, model, epoch], or 'human': the verdicts stored "
            "by proctor review): report the judge's agreement with them, Cohen's kappa, base "
            "rates, position bias, self-consistency."
        ),
    ] = None,
    repeats: Annotated[
        int, typer.Option(help="Ask the judge this many times per answer (self-consistency).")
    ] = 1,
    temperature: Annotated[float, typer.Option(help="The judge's sampling temperature.")] = 0.0,
    pass_score: Annotated[
        int, typer.Option(help="With --against: a pointwise score at least this is a pass.")
    ] = 6,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Judge a stored run's answers with a model; stores every raw verdict, asks only what is
    missing, and writes the run's files again with the verdicts in them.

    \f
    (A typer command: each parameter is one option of `proctor judge`, hence their number
    and the length of its signature; the body is short.)
    """
    from proctor.cli.console import SafeConsole
    from proctor.cli.suite import run_judge_phase
    from proctor.runs.judge_report import ValidationAsk, judge_target, report_judged

    console = SafeConsole()
    target = judge_target(results_dir, run_ref)
    if parse_retries < 0:
        raise typer.BadParameter("--parse-retries must be 0 or more")
    plan = _plan(
        judge, target, kind, max_tokens, parse_retries, timeout, pairwise, models, concurrency,
        api_key_env,
    )  # fmt: skip
    if repeats < 1 or not 1 <= pass_score <= 10 or temperature < 0:
        raise typer.BadParameter(
            "--repeats must be at least 1, --pass-score 1 to 10, --temperature 0 or more"
        )
    ask = None
    if against is not None:  # the labels are read before any judge call
        if str(against) == "human" and not against.exists():
            from proctor.runs.review import stored_human_labels

            if pairwise:
                raise typer.BadParameter("--against human: people's verdicts are pointwise")
            labels = stored_human_labels(results_dir, target.run_id)
        else:
            from proctor.datasets.labels import load_labels

            labels = load_labels(against, pairwise=pairwise)
        ask = ValidationAsk(labels, str(against), pairwise, pass_score, repeats)
    if temperature:
        plan = replace(plan, params=replace(plan.params, temperature=temperature))
    outcome = run_judge_phase(results_dir, target.run_id, plan, console)
    for r in range(2, repeats + 1):
        again = replace(plan, label=f"{judge}#{r}", params=replace(plan.params, seed=r))
        run_judge_phase(results_dir, target.run_id, again, console)
    judged = report_judged(results_dir, target.run_id, judge, ask)
    _print_judged(judged, outcome.run_id, console)


def _plan(
    judge: str,
    target: JudgeTarget,
    kind: list[str] | None,
    max_tokens: int | None,
    parse_retries: int,
    timeout: float,
    pairwise: bool,
    models: tuple[str, str] | None,
    concurrency: int | None,
    api_key_env: list[str] | None,
) -> JudgePlan:
    """The judge phase as the options (and, where they say nothing, the suite) ask it."""
    from proctor.providers.keys import parse_key_env
    from proctor.providers.registry import key_sources
    from proctor.runs.judge import JudgePlan
    from proctor.types import GenerationParams

    return JudgePlan(
        judge=judge,
        params=GenerationParams(
            max_tokens=max_tokens or (256 if target.max_tokens is None else target.max_tokens),
            timeout_s=timeout,
        ),
        parse_retries=parse_retries,
        kinds=tuple(kind) if kind else target.kinds,
        pairwise=pairwise,
        pair=models,
        concurrency=concurrency,
        key=key_sources([judge], parse_key_env(api_key_env or []))[judge],
    )


def _print_judged(judged: Judged, run_id: str, console: Console) -> None:
    from proctor.cli.judge_report import print_validation
    from proctor.report import sections
    from proctor.report.terminal import render_sections

    stats = judged.stats
    render_sections([*sections.consistency(stats), *sections.judges(stats)], console)
    if judged.validation is not None:
        print_validation(judged.validation, console)
    console.print(f"run {run_id}: its files now hold the verdicts", markup=False)
    for path in judged.written:
        console.print(f"  {path}", markup=False, highlight=False)
