"""`proctor compare`: two models on the same items, with a verdict fit for CI.

    proctor compare RUN_A RUN_B                 the (single) model of each run; A is the baseline
    proctor compare RUN_A RUN_B --models X Y    model X of run A against model Y of run B
    proctor compare RUN --models A B            two models of one run
    proctor compare RUN                         the two models of a run that has two

Exit codes: 0 when B is not significantly worse than A (better, or not distinguishable);
1 when B is significantly worse (a regression, for CI); 2 on a usage or data error, including
"no item was scored on both sides" (e.g. every call of one side failed).
Both sides are read with their stored grades (`proctor score RUN` grades again); nothing is
written to the store and no model is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.errors import ConfigError, ProctorError
from proctor.runs.state import EXIT_WORSE

if TYPE_CHECKING:
    from proctor.types import GradedItem, RunInfo



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
    results_dir: Annotated[
        Path,
        typer.Option("--results-dir", "-r", help="Folder holding the run store."),
    ] = DEFAULT_RESULTS,
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
) -> None:
    """Compare two models on the same items: flipped items and whether the difference is real.

    (A typer command: each parameter is one option of `proctor compare`, hence their number.)

    Exits 1 when B is significantly worse than A, 0 otherwise, 2 on errors.
    """
    from proctor.cli.console import SafeConsole
    from proctor.report.atomic import write_text_atomic
    from proctor.report.compare import comparison_markdown, render_comparison
    from proctor.runs.grade import stored_items
    from proctor.stats.comparison import Side, compare_runs, side_labels
    from proctor.store import RunStore

    _check_options(confidence, alpha, power, detect, resamples, show)
    if imported and (run_b is not None or models is not None):
        raise typer.BadParameter("--imported compares the two graders of one run: name one run")
    def load(ref: str) -> tuple[RunInfo, list[GradedItem]]:
        folder = _results_dir_of(ref, results_dir)
        if not (folder / "proctor.db").exists():
            raise ProctorError(f"no run store in {folder} (use --results-dir)")
        with RunStore.open(folder) as store:
            run_id = store.resolve(ref)
            info = store.run_info(run_id)
            items = stored_items(store, run_id)
        return info, items

    info_a, items_a = load(run_a)
    info_b, items_b = (info_a, items_a) if run_b is None else load(run_b)
    wanted: tuple[str | None, str | None] = models or (None, None)
    if run_b is None and models is None and not imported:
        if len(info_a.models) != 2:
            raise typer.BadParameter(
                f"run {info_a.run_id} has {len(info_a.models)} models: compare two runs, or "
                "name two of its models with --models A B"
            )
        wanted = (info_a.models[0], info_a.models[1])
    model_a = _pick_model(info_a, wanted[0], "A")
    model_b = _pick_model(info_b, wanted[1], "B")
    if imported:
        folder = _results_dir_of(run_a, results_dir)
        label_a, items_a = _imported_side(folder, info_a, items_a, grader)
        label_b = f"proctor {info_a.task}"
    elif info_a.run_id == info_b.run_id and model_a == model_b:
        raise ConfigError(f"A and B are the same model of the same run: {model_a}")
    else:
        label_a, label_b = side_labels(model_a, model_b, info_a.run_id, info_b.run_id)
    comparison = compare_runs(
        items_a,
        items_b,
        Side(label_a, model_a, info_a),
        Side(label_b, model_b, info_b),
        confidence=confidence,
        alpha=alpha,
        power=power,
        detect=None if detect is None else detect / 100.0,
        resamples=resamples,
        seed=seed,
    )
    if comparison.common_ids == 0:
        raise ProctorError("the two runs have no sample id in common: nothing to compare")
    console = SafeConsole()
    render_comparison(comparison, console, show=show)
    if markdown is not None:
        write_text_atomic(markdown, comparison_markdown(comparison, show=show))
        console.print(f"wrote {markdown}")
    if comparison.paired.n == 0:
        raise ProctorError("no item was scored on both sides: nothing to compare")
    if comparison.b_significantly_worse:
        raise typer.Exit(EXIT_WORSE)


def _imported_side(
    folder: Path, info: RunInfo, items: list[GradedItem], grader: str | None
) -> tuple[str, list[GradedItem]]:
    """The imported grader's name and the run's items graded by its stored verdicts."""
    from dataclasses import replace

    from proctor.store import RunStore
    from proctor.store.imported import verdicts
    from proctor.types import GradedItem

    with RunStore.open(folder) as store:
        stored = verdicts(store, info.run_id)
    graders = list(dict.fromkeys(v.grader for v in stored))
    if not graders:
        raise ConfigError(f"run {info.run_id} was not imported: it has no other grader")
    name = grader or graders[0]
    if name not in graders:
        raise ConfigError(f"no grader {name!r} in run {info.run_id}: {', '.join(graders)}")
    by_key = {(v.model, v.sample_id, v.epoch): v for v in stored if v.grader == name}
    theirs = []
    for item in items:
        r = item.record
        v = by_key.get((r.model, r.sample_id, r.epoch))
        if v is None:
            continue
        score = replace(
            item.score,
            outcome=v.outcome,
            rule=name,
            explanation=v.explanation,
            extracted=v.extracted,
            normalized=None,
        )
        theirs.append(GradedItem(item.sample, r, score))
    return name, theirs


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


def _pick_model(info: RunInfo, wanted: str | None, side: str) -> str:
    """The run's model named exactly `wanted`, or the only one containing it; the run's only
    model when `wanted` is None."""
    names = info.models
    if wanted is None:
        if len(names) == 1:
            return names[0]
        raise ConfigError(
            f"run {info.run_id} has {len(names)} models ({', '.join(names)}): "
            f"choose with --models A B"
        )
    if wanted in names:
        return wanted
    matches = [name for name in names if wanted.casefold() in name.casefold()]
    if len(matches) == 1:
        return matches[0]
    what = "matches several" if matches else "matches none"
    raise ConfigError(
        f"model {wanted!r} for {side} {what} of run {info.run_id}'s models: {', '.join(names)}"
    )


def _results_dir_of(run_ref: str, default: Path) -> Path:
    """A run folder `<results>/runs/<id>` names its own results folder."""
    p = Path(run_ref)
    if p.is_dir() and p.parent.name == "runs" and (p.parent.parent / "proctor.db").exists():
        return p.parent.parent
    return default
