"""What calls cost, for the commands: the price table `--prices FILE` names (read before any
call), and a run's estimate before anything is asked (calls, tokens and cost per model, the
answers the response cache would give back not counted). The CLI prints these; it never reaches
`proctor.stats` itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from proctor._util.variants import split_variant
from proctor.calling.rate_limit import estimate_tokens
from proctor.runs.ask import reusable, run_keys
from proctor.stats.cost import PriceTable, load_price_table
from proctor.tasks.prompting import asked_prompt

if TYPE_CHECKING:
    from proctor.providers.keys import KeySource
    from proctor.runs.plan import RunPlan

__all__ = ["Estimate", "ModelEstimate", "PriceTable", "estimate", "read_prices"]


def read_prices(path: Path | None) -> PriceTable:
    """The built-in price table, extended (and overridden) by the TOML file `path`, if given;
    ConfigError naming the file when it is not one."""
    return load_price_table(path)


@dataclass(frozen=True)
class ModelEstimate:
    """One model's row of an estimate: what asking it the run's items would take."""

    model: str
    calls: int
    prompt_tokens: int
    """Estimated from the prompts' text."""
    completion_tokens: int
    """At most: every call's reply at max_tokens."""
    cost: float | None
    """At most; None when the model has no price."""
    cached: int
    """Answers the response cache holds (reused, not called)."""
    key: KeySource | None


@dataclass(frozen=True)
class Estimate:
    """A run's estimate, a row per model (its variants included)."""

    models: tuple[ModelEstimate, ...]
    batch: bool
    """Priced at the batch price (--batch)."""

    @property
    def cost(self) -> float | None:
        costs = [m.cost for m in self.models]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def estimate(plan: RunPlan, prices: PriceTable, *, check_set: bool = True) -> Estimate:
    """Calls, tokens and cost before any model is called, with the key each model's calls
    would use (refused here as it would be at the start). Completion tokens are counted at
    max_tokens, so tokens and cost are upper bounds."""
    keys = run_keys(plan, {}, check_set=check_set)
    cached = reusable(plan, keys)
    batch = plan.calling.batch is not None

    def tokens(model: str) -> dict[str, int]:  # a prompt matrix's variant has its own prompt
        _, prompt, lang = split_variant(model)
        asked = (plan.task, plan.prompt_files, prompt or plan.variant, lang or plan.lang)
        return {
            s.id: sum(estimate_tokens(m.content) for m in asked_prompt(*asked, s).messages)
            for s in plan.samples
        }

    rows = []
    for model in plan.models:
        per_sample = tokens(model)
        hits = cached.get(model, set())
        epochs = range(plan.calling.epochs)
        left = [sid for sid in per_sample for e in epochs if (sid, e) not in hits]
        calls, prompt_tokens = len(left), sum(per_sample[sid] for sid in left)
        completion_tokens = calls * plan.params.max_tokens
        cost = prices.cost(model, prompt_tokens, completion_tokens, batch=batch)
        rows.append(
            ModelEstimate(
                model, calls, prompt_tokens, completion_tokens, cost, len(hits), keys.get(model)
            )
        )
    return Estimate(tuple(rows), batch)
