"""`proctor run … --estimate --detect 2pp [--baseline RUN]`: the items a paired comparison of the
plan's models needs to detect that difference (`proctor.stats.power`), then what asking that
many items costs per model — calls, tokens, dollars at the list and at the batch price. Nothing
is called and nothing is written; the baseline is read from the store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from proctor.calling.rate_limit import estimate_tokens
from proctor.errors import ConfigError
from proctor.runs.grade import stored_items
from proctor.runs.plan import RunPlan
from proctor.stats.cost import PriceTable
from proctor.stats.power import SizePlan, discordance, size_plan
from proctor.stats.scores import item_scores
from proctor.store import RunStore
from proctor.types import GradedItem


@dataclass(frozen=True)
class SizedCost:
    model: str
    calls: int
    prompt_tokens: int
    """Estimated from the plan's prompts: their mean length times the items."""
    completion_tokens: int
    """At max_tokens: an upper bound."""
    list_cost: float | None
    batch_cost: float | None
    """None: the model has no price."""


@dataclass(frozen=True)
class Sizing:
    plan: SizePlan
    costs: tuple[SizedCost, ...]


def baseline_scores(plan: RunPlan, ref: str) -> Mapping[str, Mapping[str, float]]:
    """Model → sample id → score of the stored run `ref` (ConfigError when there is none)."""
    if not (plan.results_dir / "proctor.db").exists():
        raise ConfigError(f"--baseline {ref}: no run store in {plan.results_dir}")
    with RunStore.open(plan.results_dir) as store:
        run_id = store.resolve(ref)
        items = stored_items(store, run_id)
    by_model: dict[str, list[GradedItem]] = {}
    for item in items:
        by_model.setdefault(item.record.model, []).append(item)
    return {m: item_scores(mine) for m, mine in by_model.items()}


def sizing(
    plan: RunPlan,
    detect: float,
    prices: PriceTable,
    baseline: str | None = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Sizing:
    scores = baseline_scores(plan, baseline) if baseline is not None else None
    found = discordance(scores, f"run {baseline}" if baseline else "the baseline")
    sized = size_plan(detect, found, alpha=alpha, power=power, available=None)
    prompt_each = [
        sum(estimate_tokens(m.content) for m in plan.task.build_prompt(s, plan.variant,
                                                                        plan.lang).messages)
        for s in plan.samples
    ]  # fmt: skip
    mean_prompt = sum(prompt_each) / len(prompt_each) if prompt_each else 0.0
    calls = sized.items * plan.calling.epochs
    prompt_tokens = round(mean_prompt * calls)
    completion_tokens = calls * plan.params.max_tokens
    costs = tuple(
        SizedCost(
            model=m,
            calls=calls,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            list_cost=prices.cost(m, prompt_tokens, completion_tokens),
            batch_cost=prices.cost(m, prompt_tokens, completion_tokens, batch=True),
        )
        for m in plan.models
    )
    return Sizing(sized, costs)
