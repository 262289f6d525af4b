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
from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.keys import ApiKeyEnv
from proctor.errors import ConfigError


def judge_cmd(
    run_ref: Annotated[
        str, typer.Argument(metavar="RUN", help="Run id, prefix, folder, or latest.")
    ],
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
    timeout: Annotated[float, typer.Option(help="Per-request timeout, seconds.")] = 120.0,
    concurrency: Annotated[int | None, typer.Option(help="Judge requests in flight.")] = None,
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
    results_dir: Annotated[
        Path, typer.Option("--results-dir", "-r", help="Folder holding the run store.")
    ] = DEFAULT_RESULTS,
) -> None:
    """Judge a stored run's answers with a model; stores every raw verdict, asks only what is
    missing, and writes the run's files again with the verdicts in them.

    (A typer command: each parameter is one option of `proctor judge`, hence their number.)
    """
    from proctor.cli.console import SafeConsole
    from proctor.cli.judge_report import print_validation, write_validation
    from proctor.cli.suite import run_judge_phase
    from proctor.providers.keys import parse_key_env
    from proctor.providers.registry import key_sources
    from proctor.report import sections
    from proctor.report.terminal import render_sections
    from proctor.runs.gate import suite_info
    from proctor.runs.judge import JudgePlan
    from proctor.runs.report import run_statistics, write_report
    from proctor.store import RunStore
    from proctor.tasks.registry import TASKS
    from proctor.types import GenerationParams

    console = SafeConsole()
    if not (results_dir / "proctor.db").exists():
        raise ConfigError(f"no run store in {results_dir} (use --results-dir)")
    if parse_retries < 0:
        raise typer.BadParameter("--parse-retries must be 0 or more")
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(run_ref)
        info = suite_info(store.run_config(run_id))
    kinds = tuple(kind) if kind else _stored_kinds(info)
    stored_max = info.get("judge_max_tokens")
    plan = JudgePlan(
        judge=judge,
        params=GenerationParams(
            max_tokens=max_tokens or (stored_max if isinstance(stored_max, int) else 256),
            timeout_s=timeout,
        ),
        parse_retries=parse_retries,
        kinds=kinds,
        pairwise=pairwise,
        pair=models,
        concurrency=concurrency,
        key=key_sources([judge], parse_key_env(api_key_env or []))[judge],
    )
    if repeats < 1 or not 1 <= pass_score <= 10 or temperature < 0:
        raise typer.BadParameter(
            "--repeats must be at least 1, --pass-score 1 to 10, --temperature 0 or more"
        )
    labels = None
    if against is not None and str(against) == "human" and not against.exists():
        from proctor.runs.review import stored_labels

        if pairwise:
            raise typer.BadParameter("--against human: people's verdicts are pointwise")
        with RunStore.open(results_dir) as store:
            labels = stored_labels(store, run_id)  # read before any judge call
    elif against is not None:
        from proctor.datasets.labels import load_labels

        labels = load_labels(against, pairwise=pairwise)  # read before any judge call
    if temperature:
        plan = replace(plan, params=replace(plan.params, temperature=temperature))
    outcome = run_judge_phase(results_dir, run_id, plan, console)
    for r in range(2, repeats + 1):
        again = replace(plan, label=f"{judge}#{r}", params=replace(plan.params, seed=r))
        run_judge_phase(results_dir, run_id, again, console)
    with RunStore.open(results_dir) as store:
        stats = run_statistics(store, outcome.run_id, TASKS.get(store.run_info(run_id).task))
        written = write_report(store, stats)
        validation = None
        if labels is not None and against is not None:
            from proctor.audit.judge_validation import validate

            validation = validate(
                store,
                run_id,
                judge,
                labels,
                labels_file=str(against),
                pairwise=pairwise,
                pass_score=pass_score,
                repeats=repeats,
            )
            written.append(write_validation(store.run_dir(run_id), validation))
    render_sections([*sections.consistency(stats), *sections.judges(stats)], console)
    if validation is not None:
        print_validation(validation, console)
    console.print(f"run {outcome.run_id}: its files now hold the verdicts", markup=False)
    for path in written:
        console.print(f"  {path}", markup=False, highlight=False)


def _stored_kinds(info: object) -> tuple[str, ...] | None:
    kinds = info.get("judge_kinds") if isinstance(info, dict) else None
    if isinstance(kinds, list) and kinds:
        return tuple(str(k) for k in kinds)
    return None
