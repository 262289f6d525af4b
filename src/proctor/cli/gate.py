"""`proctor gate RUN`: check a stored run against quality requirements, for CI.

    proctor gate RUN --require "accuracy>=0.9" --require "kind=extraction:accuracy>=0.95"
    proctor gate RUN                              the requirements of the suite's config
    proctor gate RUN --baseline RUN_B             … and not significantly worse than RUN_B
    proctor gate latest                           the newest run in the store (for CI)

Exit codes: 0 when every requirement passes, 1 when any fails, 2 on a usage or data error;
3 when the run is incomplete and 4 when calls failed (these come first: a gate over the answers
that came back says nothing of those that did not).
Grading is redone purely from the stored records; judge verdicts are read again from the stored
judge replies; nothing is written and no model is called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.errors import ConfigError
from proctor.runs.state import EXIT_FAILED

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.stats.gates import GateRow
    from proctor.types import RunInfo

_JUDGE_METRICS = ("judge_mean", "judge_unscored")


def gate_cmd(
    run_ref: Annotated[
        str, typer.Argument(metavar="RUN", help="Run id, prefix, folder, or latest.")
    ],
    require: Annotated[
        list[str] | None,
        typer.Option(
            "--require",
            help='A requirement, e.g. "accuracy>=0.9" or "kind=extraction:accuracy>=0.95"; '
            "repeat for several. Default: the [gate] of the suite's config.",
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(help="Also require: not significantly worse than this run."),
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
    results_dir: Annotated[
        Path, typer.Option("--results-dir", "-r", help="Folder holding the run store.")
    ] = DEFAULT_RESULTS,
) -> None:
    """Check a run against requirements; exit 1 when any fails (for CI), 0 when all pass."""
    from proctor.cli.console import SafeConsole
    from proctor.cli.suite import graded_items, only_judge, suite_info
    from proctor.runs.report import judge_scores
    from proctor.runs.state import state_exit, state_lines
    from proctor.stats.completeness import completeness
    from proctor.stats.gates import evaluate, not_worse_than, parse_requirement
    from proctor.store import RunStore

    console = SafeConsole()
    if not (results_dir / "proctor.db").exists():
        raise ConfigError(f"no run store in {results_dir} (use --results-dir)")
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(run_ref)
        info = store.run_info(run_id)
        stored = suite_info(store.run_config(run_id))
        texts, stored_alpha = _requirements(require, config, stored)
        if not texts and baseline is None:
            raise ConfigError(
                "nothing to check: give --require or --baseline, or set [gate] require in the "
                "suite's config"
            )
        requirements = [parse_requirement(t) for t in texts]
        models = _models(info.models, model)
        items = [i for i in graded_items(store, run_id) if i.record.model in models]
        epochs = store.run_config(run_id).get("epochs", 1)
        state = completeness(
            items, models, info.dataset_size * (epochs if isinstance(epochs, int) else 1)
        )
        scores = None
        if any(r.metric in _JUDGE_METRICS for r in requirements):
            judgements = [j for j in store.judgements(run_id) if j.ordering == "single"]
            scores = judge_scores(judgements, only_judge(judgements, judge))
        kappa = None
        if any(r.metric == "judge_kappa" for r in requirements):
            kappa = _judge_kappa(store.run_dir(run_id), judge)
        rows = evaluate(requirements, items, models, scores, kappa)
        if baseline is not None:
            base_id = store.resolve(baseline)
            base_info = store.run_info(base_id)
            _warn_versions(console, stored, suite_info(store.run_config(base_id)), info, base_info)
            base_items = graded_items(store, base_id)
            for m in models:
                base_model = m if m in base_info.models else _single(base_info.models, base_id)
                rows.append(
                    not_worse_than(
                        [i for i in items if i.record.model == m],
                        [i for i in base_items if i.record.model == base_model],
                        label=base_id,
                        model=m,
                        alpha=alpha if alpha is not None else stored_alpha,
                    )
                )
    _print(console, run_id, rows)
    failed = sum(not r.passed for r in rows)
    # A gate must not pass (nor merely fail) a run that was not all asked or whose calls
    # failed: accuracy over the answers that came back says nothing of those that did not.
    code, line = state_exit(run_id, state)
    if line is not None:
        for problem in state_lines(run_id, state):
            console.print(f"  {problem}")
        console.print(line, soft_wrap=True)
        raise typer.Exit(code)
    if failed:
        console.print(f"[red]gate failed:[/] {failed} of {len(rows)} checks")
        raise typer.Exit(EXIT_FAILED)
    console.print(f"[green]gate passed:[/] {len(rows)} checks")


def _judge_kappa(run_dir: Path, judge: str | None) -> dict[str, tuple[float | None, int]]:
    """Kappa per model (and "" overall) from the run's judge_validation.json."""
    from proctor.audit.judge_validation import stored_kappa

    found = stored_kappa(run_dir, judge)
    if found is None:
        return {}
    out: dict[str, tuple[float | None, int]] = {}
    overall = found.get("overall") or {}
    out[""] = (overall.get("kappa"), int(overall.get("n") or 0))
    for model, a in (found.get("per_model") or {}).items():
        out[str(model)] = (a.get("kappa"), int(a.get("n") or 0))
    return out


def _requirements(
    given: list[str] | None, config: Path | None, stored: Mapping[str, object]
) -> tuple[list[str], float]:
    """The requirements to check and the baseline's alpha: --require, else the [gate] of
    --config, else the [gate] the suite's config had when the run began."""
    from proctor.datasets.suites.config import load_config

    if config is not None:
        gate = load_config(config).gate
        return (list(given) if given else list(gate.require)), gate.alpha
    stored_gate = stored.get("gate")
    require: list[str] = []
    alpha = 0.05
    if isinstance(stored_gate, dict):
        req = stored_gate.get("require")
        if isinstance(req, list):
            require = [str(r) for r in req]
        a = stored_gate.get("alpha")
        if isinstance(a, int | float):
            alpha = float(a)
    return (list(given) if given else require), alpha


def _models(models: Sequence[str], model: str | None) -> list[str]:
    if model is None:
        return list(models)
    if model not in models:
        raise ConfigError(f"model {model!r} is not in this run: {', '.join(models)}")
    return [model]


def _single(models: Sequence[str], run_id: str) -> str:
    if len(models) != 1:
        raise ConfigError(
            f"baseline {run_id} has models {', '.join(models)}; none has the candidate's name"
        )
    return models[0]


def _warn_versions(
    console: Console,
    ours: Mapping[str, object],
    theirs: Mapping[str, object],
    info: RunInfo,
    base_info: RunInfo,
) -> None:
    from proctor.runs.report import describe_version

    if ours.get("content_hash") != theirs.get("content_hash"):
        console.print(
            "[yellow]warning:[/] the two runs used different suite versions: "
            f"{describe_version(ours)} vs {describe_version(theirs)}"
        )
    elif info.dataset_hash != base_info.dataset_hash:
        console.print(
            "[yellow]warning:[/] the two runs asked different cases "
            f"({info.dataset_hash} vs {base_info.dataset_hash}); compared on the common ones"
        )


def _value(row: GateRow) -> str:
    if row.value is None:
        return "—"
    if row.metric == "judge_mean":
        return f"{row.value:.2f}"
    if row.metric == "judge_kappa":
        return f"{row.value:.3f}"
    if row.metric == "n":
        return f"{row.value:.0f}"
    if row.metric == "baseline":
        return f"{row.value * 100:+.1f} pts".replace("-", "−")
    return f"{row.value * 100:.1f} %"


def _print(console: Console, run_id: str, rows: Sequence[GateRow]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Gate for run {run_id}")
    table.add_column("requirement", overflow="fold")
    table.add_column("model", overflow="fold")
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("result", no_wrap=True)
    table.add_column("note", overflow="fold")
    for row in rows:
        result = Text("pass", style="green") if row.passed else Text("FAIL", style="bold red")
        table.add_row(
            Text(row.requirement), Text(row.model), _value(row), str(row.n), result, Text(row.note)
        )
    console.print(table)
