"""`proctor run TASK -m A -m B --sequential --margin 1pp`: ask both models the shared items in a
seeded random order, batch by batch, and stop as soon as an anytime-valid confidence sequence
(`proctor.stats.sequential`) decides the margin question for B against A — or the items run out.

Each batch is an ordinary `execute` of the same run restricted to the items asked so far
(`only`), so answers are stored, graded, cached and resumable as in any run. A run stopped early
is left "interrupted" with its design in its config: its reports say it stopped early by design
and why (`proctor.runs.stopped`), and `proctor run --resume RUN` asks the rest. The verdict
stays valid under optional stopping; the report says how many items were asked and what was
saved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from proctor.errors import ConfigError
from proctor.runs.ask import execute
from proctor.runs.grade import stored_items
from proctor.runs.plan import OnPlan, OnResult, RunOutcome, RunPlan
from proctor.runs.stopped import paired_bounds, remember_design
from proctor.stats.margin import Verdict, verdict_of
from proctor.stats.paired import points, signed_points
from proctor.stats.sequential import DEFAULT_ALPHA, METHOD
from proctor.store import RunStore

DEFAULT_BATCH = 20


@dataclass(frozen=True)
class SequentialOutcome:
    run: RunOutcome
    verdict: Verdict
    baseline: str
    candidate: str
    margin: float
    asked: int
    """Items asked of both models when it stopped."""
    total: int
    paired: int
    """Items both models were scored on (what the sequence reads)."""
    effect: float
    low: float
    high: float
    looks: int
    alpha: float

    def sentence(self) -> str:
        saved = self.total - self.asked
        head = (
            f"{self.verdict}: {self.candidate} against {self.baseline}, margin "
            f"{points(self.margin)} points: {self.candidate} − {self.baseline} = "
            f"{signed_points(self.effect)} points, anytime-valid {100 * (1 - self.alpha):g} % "
            f"bounds {signed_points(self.low)} to {signed_points(self.high)}"
        )
        return (
            f"{head}; decided after {self.asked:,} of {self.total:,} items ({self.looks} looks), "
            f"{saved:,} items ({2 * saved:,} calls) not asked. The verdict stays valid under "
            f"optional stopping ({METHOD})."
            if self.verdict != "INCONCLUSIVE"
            else f"{head}; every one of the {self.total:,} items asked ({self.looks} looks) "
            "and still undecided."
        )


async def run_sequential(
    plan: RunPlan,
    margin: float,
    *,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    resume: str | None = None,
    on_plan: OnPlan | None = None,
    on_result: OnResult | None = None,
) -> SequentialOutcome:
    """Ask batch by batch until decided (module docstring). The first model is the baseline."""
    if len(plan.models) != 2 or plan.calling.epochs != 1:
        raise ConfigError("--sequential compares two models, one reply each: give -m A -m B")
    if batch < 1:
        raise ConfigError("--sequential-batch must be at least 1")
    order = [plan.samples[i].id for i in np.random.default_rng(seed).permutation(len(plan.samples))]
    run_ref, outcome, looks = resume, None, 0
    verdict: Verdict = "INCONCLUSIVE"
    stats = (0, 0.0, -1.0, 1.0)
    asked = 0
    said: dict[str, None] = {}  # each look's warnings (spans not sent), each said once
    while asked < len(order):
        asked = min(len(order), asked + batch)
        outcome = await execute(
            plan,
            resume=run_ref,
            on_plan=on_plan,
            on_result=on_result,
            only=frozenset(order[:asked]),
        )
        if looks == 0:
            with RunStore.open(plan.results_dir) as store:
                remember_design(store, outcome.run_id, margin, batch, seed, alpha)
        run_ref, looks = outcome.run_id, looks + 1
        said |= dict.fromkeys(outcome.warnings)
        with RunStore.open(plan.results_dir) as store:
            graded = stored_items(store, outcome.run_id)
        stats = paired_bounds(graded, plan.models, len(order), alpha)
        verdict = verdict_of(stats[2], stats[3], margin) if stats[0] else "INCONCLUSIVE"
        if verdict != "INCONCLUSIVE":
            break
    if outcome is None:
        raise ConfigError("--sequential: the task has no items")
    if asked < len(order):
        with RunStore.open(plan.results_dir) as store:
            store.set_status(outcome.run_id, "interrupted")  # `--resume` asks the rest
    n, effect, low, high = stats
    base, cand = plan.models
    return SequentialOutcome(
        replace(outcome, warnings=tuple(said)), verdict, base, cand, margin, asked, len(order),
        n, effect, low, high, looks, alpha,
    )  # fmt: skip

