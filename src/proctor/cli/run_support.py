"""What `proctor run` prints besides the report: the estimate before spending anything, and how
calling each model went (retries, rate limits, a model stopped by its circuit breaker)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from proctor.calling.rate_limit import estimate_tokens
from proctor.cli.console import plain
from proctor.cli.keys import key_from
from proctor.report.atomic import write_text_atomic
from proctor.report.text import short_names
from proctor.runner import ModelReport, RunOutcome, RunPlan, reusable, run_keys
from proctor.stats.cost import PriceTable, ledger, load_price_table
from proctor.stats.metrics import RunMetrics
from proctor.tasks.base import Task
from proctor.types import GradedItem


def print_estimate(
    plan: RunPlan, prices: PriceTable, console: Console, *, check_set: bool = True
) -> None:
    """Calls, tokens and cost before any model is called, and the variable each model's key
    comes from (refused here as it would be at the start). Completion tokens are counted at
    max_tokens, so tokens and cost are upper bounds. Answers the results folder's response
    cache holds are not counted as calls (they would be reused, for nothing); with --batch the
    cost is at the batch price."""
    keys = run_keys(plan, {}, check_set=check_set)
    cached = reusable(plan, keys)
    per_sample = {
        s.id: sum(
            estimate_tokens(m.content)
            for m in plan.task.build_prompt(s, plan.variant, plan.lang).messages
        )
        for s in plan.samples
    }
    batch = plan.batch is not None
    title = f"Estimate: {plan.task.name}, {len(plan.samples)} samples × {plan.epochs}"
    table = Table(title=title + (" (in batches, at the batch price)" if batch else ""))
    columns = ("model", "calls", "prompt tokens (est.)", "completion tokens (max)", "cost (max)")
    for col in columns:
        table.add_column(col, justify="right" if col != "model" else "left")
    table.add_column("from the cache", justify="right")
    table.add_column("key from")
    total: float | None = 0.0
    all_calls = all_reused = 0
    for model in plan.models:
        hits = cached.get(model, set())
        left = [sid for sid in per_sample for e in range(plan.epochs) if (sid, e) not in hits]
        calls, prompt_tokens = len(left), sum(per_sample[sid] for sid in left)
        completion_tokens = calls * plan.params.max_tokens
        cost = prices.cost(model, prompt_tokens, completion_tokens, batch=batch)
        total = None if cost is None or total is None else total + cost
        all_calls, all_reused = all_calls + calls, all_reused + len(hits)
        table.add_row(
            Text(model),
            f"{calls:,}",
            f"{prompt_tokens:,}",
            f"{completion_tokens:,}",
            "no price" if cost is None else f"${cost:,.4f}",
            f"{len(hits):,}",
            key_from(keys.get(model)),
        )
    console.print(table)
    spent = "unknown (a model has no price; add it with --prices FILE)"
    if total is not None:
        spent = f"at most ${total:,.4f}"
    reused = f" ({all_reused:,} answers from the response cache)" if all_reused else ""
    console.print(f"{all_calls:,} calls in all{reused}; cost {spent}. Nothing was called.")


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


def print_costs(
    metrics: RunMetrics, prices: Path | None, console: Console, items: Sequence[GradedItem]
) -> None:
    """Tokens and cost per model, from the price table, for the answers this run asked for; the
    answers it took from the response cache, and what that saved, on a line of their own. A
    model with no price says so."""
    table = load_price_table(prices)
    label = short_names([m.model for m in metrics.models])  # as in the tables above
    parts = []
    saved = []
    unknown = {m.model: m.unknown_usage for m in metrics.models}
    for m in ledger(items, table, [m.model for m in metrics.models]):
        money = "no price" if m.cost is None else f"${m.cost:,.4f}"
        if m.batched:
            money += f" ({m.batched:,} answers asked in batches, at the batch price)"
        line = (
            f"{label.get(m.model, m.model)}: {m.prompt_tokens:,} prompt + "
            f"{m.completion_tokens:,} completion tokens, {money}"
        )
        if unknown.get(m.model):
            # a server that sent no usable counts: the sums (and the cost) are lower bounds
            line += f" (at least: {unknown[m.model]:,} answers had unknown token counts)"
        parts.append(plain(line))
        if m.reused:
            runs = ", ".join(m.sources[:3]) + (" …" if len(m.sources) > 3 else "")
            basis = "batch" if m.saved_at_batch_price else "list"
            value = "no price" if m.saved is None else f"${m.saved:,.4f} not spent"
            value += "" if m.saved is None else f" (at the {basis} price)"
            saved.append(
                plain(
                    f"{label.get(m.model, m.model)}: {m.reused:,} answers reused from the "
                    f"response cache (run {runs}): {m.reused:,} calls, "
                    f"{m.reused_prompt_tokens:,} prompt + {m.reused_completion_tokens:,} "
                    f"completion tokens, {value}"
                )
            )
    console.print("cost  " + "\n      ".join(parts))
    if saved:
        console.print("saved " + "\n      ".join(saved))


def report_task_metrics(
    task: Task, items: Sequence[GradedItem], run_dir: Path, console: Console
) -> Path | None:
    """A task's own metrics beyond accuracy (lm-eval filters, calibration, perturbation drop…):
    printed as a table and written to `task_metrics.json` in the run folder."""
    if task.metrics is None or not items:
        return None
    values = task.metrics(items)
    names = sorted({name for per_model in values.values() for name in per_model})
    if not names:
        return None
    table = Table(title=f"{task.name} metrics")
    table.add_column("model")
    for name in names:
        table.add_column(name, justify="right")
    for model, per_model in values.items():
        table.add_row(Text(model), *(_fmt(per_model.get(name)) for name in names))
    console.print(table)
    path = run_dir / "task_metrics.json"
    document = {"task": task.name, "task_version": task.version, "models": values}
    write_text_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def _fmt(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return f"{value:.4g}"
