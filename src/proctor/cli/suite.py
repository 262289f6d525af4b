"""What `proctor run --suite` adds to a run, and what a suite run's report adds: the suite's
version recorded in the run's config, the judge phase, consistency over repeated replies and
the judge's verdicts read again from the store."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from proctor.cli.console import plain
from proctor.errors import ConfigError
from proctor.judging import JudgeOutcome, JudgePlan, judge_run
from proctor.providers.keys import KeySource
from proctor.runner import OnPlan
from proctor.score.judge import combine_pairwise, read_replies
from proctor.stats.gates import JudgeScores
from proctor.stats.repeats import repeat_metrics
from proctor.store import RunStore
from proctor.store.run_store import Judgement
from proctor.suites.loader import Suite, load_suite
from proctor.types import GenerationParams, GradedItem

SUITE_KEY = "suite"
"""The run config key that holds the suite's version, path, gates and judge settings."""


@dataclass(frozen=True)
class SuiteRun:
    """A suite given to `proctor run --suite FILE`."""

    suite: Suite

    @classmethod
    def open(cls, path: Path, task: str | None) -> SuiteRun:
        if task not in (None, "suite"):
            raise ConfigError(f"--suite runs the suite task; drop the task name {task!r}")
        return cls(load_suite(path))

    @property
    def max_tokens(self) -> int:
        return self.suite.config.max_tokens

    def judge_model(self, given: str | None) -> str | None:
        return given or self.suite.config.judge

    def on_plan(self, inner: OnPlan, results_dir: Path) -> OnPlan:
        """`inner`, after recording the suite's version in the run's config (once: a resumed
        run keeps the version it began with)."""

        def record(run_id: str, counts: Mapping[str, tuple[int, int]]) -> None:
            with RunStore.open(results_dir) as store:
                store.add_run_config(run_id, {SUITE_KEY: self.suite.run_config()})
            inner(run_id, counts)

        return record

    def judge_plan(self, judge: str, timeout_s: float) -> JudgePlan:
        config = self.suite.config
        return JudgePlan(
            judge=judge,
            params=GenerationParams(max_tokens=config.judge_max_tokens, timeout_s=timeout_s),
            kinds=tuple(config.judge_kinds),
        )


def run_judge_phase(
    results_dir: Path, run_ref: str, plan: JudgePlan, console: Console
) -> JudgeOutcome:
    """The judge phase with a line of progress per verdict count, and its summary line."""
    done = {"n": 0}

    def on_judged(_: Judgement) -> None:
        done["n"] += 1
        if done["n"] % 10 == 0:
            console.print(f"  judged {done['n']}…")

    outcome = asyncio.run(judge_run(results_dir, run_ref, plan, on_judged=on_judged))
    console.print(
        f"judge {plain(outcome.judge)}: asked {outcome.asked} ({outcome.ok} verdicts, "
        f"{outcome.unscored} unscored, {outcome.failed} failed calls); "
        f"{outcome.stored} already stored; {outcome.skipped} answers had no reply to judge"
    )
    return outcome


def judge_scores(judgements: Sequence[Judgement], judge: str | None = None) -> JudgeScores:
    """Pointwise verdicts read again from their stored replies: (model, sample, epoch) → score,
    or None when unscored (a failed judge call included)."""
    scores: dict[tuple[str, str, int], float | None] = {}
    for j in judgements:
        if j.ordering != "single" or (judge is not None and j.judge != judge):
            continue
        reading = read_replies(j.replies, pairwise=False)
        scores[(j.model, j.sample_id, j.epoch)] = (
            float(reading.score.score) if reading.score is not None else None
        )
    return scores


def only_judge(judgements: Sequence[Judgement], judge: str | None) -> str | None:
    """The judge to read: the one named, or the only one the run has; ConfigError if several."""
    judges = sorted({j.judge for j in judgements})
    if judge is not None:
        if judge not in judges:
            raise ConfigError(f"no verdicts of judge {judge!r} (this run has: {judges or 'none'})")
        return judge
    if len(judges) > 1:
        raise ConfigError(
            f"this run has several judges ({', '.join(judges)}): name one with --judge"
        )
    return judges[0] if judges else None


def suite_info(config: Mapping[str, object]) -> Mapping[str, object]:
    value = config.get(SUITE_KEY)
    return value if isinstance(value, dict) else {}


def describe_version(info: Mapping[str, object]) -> str:
    if not info:
        return "not recorded"
    commit = info.get("git_commit")
    text = str(info.get("content_hash", "?"))
    if isinstance(commit, str):
        text += f" at git {commit[:12]}"
        if info.get("git_dirty"):
            text += f" ({info.get('git_note')})"
    else:
        text += f" ({info.get('git_note')})"
    return text


def print_suite_summary(
    store: RunStore, run_id: str, items: Sequence[GradedItem], console: Console
) -> None:
    """Version, consistency and judge verdicts of a suite run (after the usual report)."""
    info = suite_info(store.run_config(run_id))
    if info:
        console.print(f"suite [bold]{plain(info.get('name'))}[/] · {plain(describe_version(info))}")
    _print_consistency(items, console)
    judgements = store.judgements(run_id)
    for judge in sorted({j.judge for j in judgements}):
        mine = [j for j in judgements if j.judge == judge]
        _print_pointwise(judge, [j for j in mine if j.ordering == "single"], items, console)
        _print_pairwise(judge, [j for j in mine if j.ordering != "single"], console)


def _kind(item: GradedItem) -> str:
    return item.sample.metadata.get("kind") or item.sample.category


def _print_consistency(items: Sequence[GradedItem], console: Console) -> None:
    overall = repeat_metrics(items, ks=())
    if not any(m.replies_per_item > 1 for m in overall.values()):
        return
    kinds = list(dict.fromkeys(_kind(i) for i in items))
    table = Table(title="Consistency: cases whose repeated replies all read the same")
    table.add_column("model")
    table.add_column("all", justify="right")
    for kind in kinds:
        table.add_column(kind, justify="right")
    for model, m in overall.items():
        cells = [_share(m.stability.value, m.stability.n)]
        for kind in kinds:
            part = [i for i in items if i.record.model == model and _kind(i) == kind]
            s = repeat_metrics(part, ks=()).get(model)
            cells.append(_share(s.stability.value, s.stability.n) if s else "—")
        table.add_row(Text(model), *cells)
    console.print(table)


def _share(value: float | None, n: int) -> str:
    return "—" if value is None else f"{value * 100:.0f} % of {n}"


def _print_pointwise(
    judge: str, judgements: Sequence[Judgement], items: Sequence[GradedItem], console: Console
) -> None:
    if not judgements:
        return
    kind_of = {i.sample.id: _kind(i) for i in items}
    table = Table(title=Text(f"Judge {judge} (1-10; read again from the stored replies)"))
    table.add_column("model", overflow="fold")
    table.add_column("kind")
    for col in ("judged", "mean score", "correctness", "completeness"):
        table.add_column(col, justify="right")
    table.add_column("unscored", justify="right")
    reasons: list[str] = []
    groups: dict[tuple[str, str], list[Judgement]] = {}
    for j in judgements:
        groups.setdefault((j.model, "all"), []).append(j)
        groups.setdefault((j.model, kind_of.get(j.sample_id, "?")), []).append(j)
    for (model, kind), group in groups.items():
        readings = [(j, read_replies(j.replies, pairwise=False)) for j in group]
        scored = [r.score for _, r in readings if r.score is not None]
        unscored = [(j, r) for j, r in readings if r.score is None]
        if kind == "all":
            reasons += [
                f"{j.sample_id}#{j.epoch}: {j.error if j.status == 'call_failed' else r.error}"
                for j, r in unscored
            ]

        table.add_row(
            Text(model),
            Text(kind),
            str(len(group)),
            _mean([s.score for s in scored]),
            _mean([s.correctness for s in scored]),
            _mean([s.completeness for s in scored]),
            str(len(unscored)),
        )
    console.print(table)
    for reason in reasons[:5]:
        console.print(Text(f"  unscored {reason}"))
    if len(reasons) > 5:
        console.print(f"  … and {len(reasons) - 5} more unscored")


def _mean(values: Sequence[int]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "—"


def _print_pairwise(judge: str, judgements: Sequence[Judgement], console: Console) -> None:
    if not judgements:
        return
    pairs: dict[tuple[str, str, int], dict[str, Judgement]] = {}
    for j in judgements:
        pairs.setdefault((j.model, j.sample_id, j.epoch), {})[j.ordering] = j
    tally: dict[str, dict[str, int]] = {}
    for (name, _, _), orders in pairs.items():
        counts = tally.setdefault(
            name, {"a": 0, "b": 0, "tie": 0, "inconsistent": 0, "unscored": 0}
        )
        ab, ba = orders.get("ab"), orders.get("ba")
        if ab is None or ba is None:
            counts["unscored"] += 1
            continue
        first = read_replies(ab.replies, pairwise=True).pair
        second = read_replies(ba.replies, pairwise=True).pair
        if first is None or second is None:
            counts["unscored"] += 1
            continue
        counts[combine_pairwise(first, second)] += 1
    table = Table(title=Text(f"Pairwise judge {judge} (both orders must agree)"))
    table.add_column("A vs B", overflow="fold")
    for col in ("A wins", "B wins", "ties", "inconsistent", "unscored"):
        table.add_column(col, justify="right")
    for name, c in tally.items():
        table.add_row(
            Text(name),
            str(c["a"]),
            str(c["b"]),
            str(c["tie"]),
            str(c["inconsistent"]),
            str(c["unscored"]),
        )
    console.print(table)


LATEST = "latest"


def resolve_run(store: RunStore, ref: str) -> str:
    """A run id from `ref`: what `RunStore.resolve` accepts, or "latest" for the newest run."""
    if ref == LATEST:
        rows = store.list_runs()
        if not rows:
            raise ConfigError(f"no runs in {store.results_dir}")
        return rows[0].run_id
    return store.resolve(ref)


def graded_items(store: RunStore, run_id: str) -> list[GradedItem]:
    """Every stored record of the run graded with its task's current rules (a task that runs
    code: its stored grades, see `runner.shown_items`); nothing is written and no model is
    called."""
    from proctor.runner import shown_items
    from proctor.tasks.registry import get_task

    return shown_items(store, run_id, get_task(store.run_info(run_id).task))


def judge_after_run(
    suite_run: SuiteRun | None,
    judge: str | None,
    results_dir: Path,
    run_id: str,
    timeout_s: float,
    console: Console,
    *,
    key: KeySource | None = None,
) -> None:
    """`proctor run … --judge MODEL` (or a suite config's `judge`): the judge phase after the
    candidate's answers are stored; `key`: where the judge's key comes from, as the run decided
    it (None: the judge alone)."""
    model = suite_run.judge_model(judge) if suite_run is not None else judge
    if model is None:
        return
    if suite_run is not None:
        plan = suite_run.judge_plan(model, timeout_s)
    else:
        plan = JudgePlan(judge=model, params=GenerationParams(max_tokens=256, timeout_s=timeout_s))
    run_judge_phase(results_dir, run_id, replace(plan, key=key), console)


def print_suite_report(
    results_dir: Path, run_id: str, items: Sequence[GradedItem], console: Console
) -> None:
    """The suite part of `proctor run/score/report` (see `print_suite_summary`)."""
    with RunStore.open(results_dir) as store:
        print_suite_summary(store, run_id, items, console)
