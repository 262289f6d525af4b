"""What `proctor run` prints besides the report: the estimate before spending anything, and how
calling each model went (retries, rate limits, a model stopped by its circuit breaker)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from proctor.cli.console import plain
from proctor.cli.keys import key_from
from proctor.runs.plan import ModelReport, RunOutcome, RunPlan

if TYPE_CHECKING:
    from proctor.calling.batching import BatchPolicy
    from proctor.executors.base import Executor
    from proctor.runs.costs import PriceTable
    from proctor.runs.sizing import Sizing


def print_estimate(
    plan: RunPlan, prices: PriceTable, console: Console, *, check_set: bool = True
) -> None:
    """Calls, tokens and cost before any model is called, and the variable each model's key
    comes from (refused here as it would be at the start): `proctor.runs.costs.estimate`.
    Completion tokens are counted at max_tokens, so tokens and cost are upper bounds. Answers
    the results folder's response cache holds are not counted as calls (they would be reused,
    for nothing); with --batch the cost is at the batch price."""
    from proctor.runs.costs import estimate

    found = estimate(plan, prices, check_set=check_set)
    title = f"Estimate: {plan.task.name}, {len(plan.samples)} samples × {plan.calling.epochs}"
    table = Table(title=title + (" (in batches, at the batch price)" if found.batch else ""))
    columns = ("model", "calls", "prompt tokens (est.)", "completion tokens (max)", "cost (max)")
    for col in columns:
        table.add_column(col, justify="right" if col != "model" else "left")
    table.add_column("from the cache", justify="right")
    table.add_column("key from")
    for m in found.models:
        table.add_row(
            Text(m.model),
            f"{m.calls:,}",
            f"{m.prompt_tokens:,}",
            f"{m.completion_tokens:,}",
            "no price" if m.cost is None else f"${m.cost:,.4f}",
            f"{m.cached:,}",
            key_from(m.key),
        )
    console.print(table)
    spent = "unknown (a model has no price; add it with --prices FILE)"
    if found.cost is not None:
        spent = f"at most ${found.cost:,.4f}"
    all_calls, all_reused = sum(m.calls for m in found.models), sum(m.cached for m in found.models)
    reused = f" ({all_reused:,} answers from the response cache)" if all_reused else ""
    console.print(f"{all_calls:,} calls in all{reused}; cost {spent}. Nothing was called.")


def print_sizing(
    plan: RunPlan, prices: PriceTable, console: Console, detect: str | None, baseline: str | None
) -> None:
    """With `--detect`: the items it needs, then what asking them costs per model (list and
    batch prices); nothing without it."""
    from proctor.runs.gate import read_margin
    from proctor.runs.sizing import sizing

    points = read_margin(detect, "--detect")
    if points is None:
        return
    _print_sizing(sizing(plan, points, prices, baseline), console)


def _print_sizing(sized: Sizing, console: Console) -> None:
    console.print(Text(sized.plan.sentence()), soft_wrap=True)
    table = Table(title=f"Cost of {sized.plan.items:,} items")
    for col in ("model", "calls", "prompt tokens (est.)", "completion tokens (max)",
                "list price (max)", "batch price (max)"):  # fmt: skip
        table.add_column(col, justify="left" if col == "model" else "right")
    for c in sized.costs:
        table.add_row(
            Text(c.model), f"{c.calls:,}", f"{c.prompt_tokens:,}", f"{c.completion_tokens:,}",
            "no price" if c.list_cost is None else f"${c.list_cost:,.4f}",
            "no price" if c.batch_cost is None else f"${c.batch_cost:,.4f}",
        )  # fmt: skip
    console.print(table)


def say_warnings(outcomes: Sequence[RunOutcome]) -> None:
    """What the sessions must say once (spans not sent): each warning once, on stderr (and as
    a `--json` warning event), however many runs of a set said it."""
    from proctor.cli.json_events import warn
    from proctor.cli.options import terminal

    for message in dict.fromkeys(w for o in outcomes for w in o.warnings):
        warn(terminal(stderr=True), message)


def print_call_reports(outcome: RunOutcome, console: Console) -> None:
    if outcome.deadline_hit:
        console.print(
            "[yellow]deadline reached:[/] unasked samples stay missing; "
            "run the same command again to finish"
        )
    rows: Sequence[ModelReport] = [
        r
        for r in outcome.models
        if r.stats.retries or r.stopped or r.stats.failures_by_type or r.shard_failures
    ]
    for r in rows:
        failed = ", ".join(f"{k} {v}" for k, v in sorted(r.stats.failures_by_type.items()))
        line = (
            f"{r.model}: {r.stats.calls} calls, {r.stats.retries} retries, "
            f"{r.stats.rate_limited} rate-limited answers"
        )
        if r.lowest_concurrency and r.stats.rate_limited:
            line += f", concurrency lowered to {r.lowest_concurrency}"
        if failed:
            line += f"; failed calls: {failed}"
        console.print(Text(line))
        if r.stopped:
            console.print(f"[red]{plain(r.model)} was stopped:[/] {plain(r.stopped)}")
        for f in r.shard_failures:
            where = f"on {f.node}" if f.node else "before it started on a node"
            if f.failed_calls:
                then = f"{f.failed_calls} stored as call_failed (--retry-errors asks them)"
            elif f.rerun:
                then = f"its {f.unanswered} unanswered asked again elsewhere"
            else:
                then = f"its {f.unanswered} unanswered left missing (--resume asks them)"
            line = f"  shard {f.shard} {where}: {f.reason}; {then}"
            console.print(Text(line), soft_wrap=True)  # one line each, to grep in logs


def batch_policy(batch: bool, size: int, poll: float, executor: str) -> BatchPolicy | None:
    if not batch:
        return None
    from proctor.calling.batching import BatchPolicy

    if size < 1 or poll <= 0:
        raise typer.BadParameter("--batch-size must be at least 1, --batch-poll above 0")
    if executor != "local":
        raise typer.BadParameter("--batch asks from this machine: drop --executor")
    return BatchPolicy(size=size, first_poll_s=poll)

def refuse_unusable(model: str, named: Mapping[str, str]) -> None:
    """Build (and drop) the provider of `model`: a bad model string or a missing key is a
    usage error now, before any call, not after every answer was asked."""
    import asyncio

    from proctor.providers.registry import key_sources, make_provider, parse_model

    own = {k: v for k, v in named.items() if k in (model, parse_model(model).name)}
    provider = make_provider(model, key_sources([model], own)[model])
    asyncio.run(provider.aclose())

def make_executor(
    name: str,
    address: str | None,
    shard_size: int,
    runtime_env: str | None = None,
    forward_env: list[str] | None = None,
    resources: list[str] | None = None,
) -> Executor | None:
    if shard_size < 1:
        raise typer.BadParameter("--shard-size must be at least 1")
    if name == "local":
        if runtime_env is not None or forward_env or resources:
            raise typer.BadParameter("--ray-* options need --executor ray")
        return None
    if name != "ray":
        raise typer.BadParameter(f"unknown executor {name!r}: use local or ray")
    from proctor.cli.ray_options import make_ray_executor

    return make_ray_executor(address, shard_size, runtime_env, forward_env, resources)
