"""What `proctor run --suite` adds to a run, and what a suite run's report adds: the suite's
version recorded in the run's config, the judge phase, consistency over repeated replies and
the judge's verdicts read again from the store."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console

from proctor.cli.console import plain
from proctor.datasets.suites.loader import Suite, load_suite
from proctor.errors import ConfigError
from proctor.providers.keys import KeySource
from proctor.runs.judge import JudgeOutcome, JudgePlan, judge_run
from proctor.runs.plan import OnPlan
from proctor.runs.suites import record_suite
from proctor.types import GenerationParams


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
            record_suite(results_dir, run_id, self.suite.run_config())
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

    def on_judged(_: object) -> None:
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
