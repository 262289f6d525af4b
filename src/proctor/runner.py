"""The only place that wires the stages together:

    dataset → prompt → call → store (raw record, committed) → extract → score → stats → report

`execute` asks each model only for what the store does not hold yet, so a run killed at any
moment and started again with the same command (or `--resume RUN`) loses nothing and asks
nothing twice. `grade_run` re-enters after the store and never calls a model."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from proctor.calling.breaker import CircuitBreaker
from proctor.calling.caller import CallFailure, CallStats, ModelCaller
from proctor.calling.rate_limit import RateLimits
from proctor.calling.retry import RetryPolicy
from proctor.errors import ConfigError
from proctor.providers.base import Provider
from proctor.providers.registry import make_provider
from proctor.store import RunStore, new_run_id
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task
from proctor.types import GenerationParams, GradedItem, Record, RunInfo, Sample, Score, Usage

OnResult = Callable[[str, Score], None]
"""Called after each stored answer with the model and its provisional grade (for progress)."""
OnPlan = Callable[[str, Mapping[str, tuple[int, int]]], None]
"""Called once a run is known: run id and, per model, (already stored, still to ask)."""


@dataclass(frozen=True)
class RunPlan:
    task: Task
    samples: tuple[Sample, ...]
    dataset_hash: str
    generator_version: str
    models: tuple[str, ...]
    variant: str
    lang: str
    params: GenerationParams
    results_dir: Path
    seed: int | None = None
    concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    source: str = ""
    epochs: int = 1
    """Samples per item (repeated sampling for pass@k, majority vote, stability)."""
    limits: RateLimits = field(default_factory=RateLimits)
    breaker_threshold: int = 25
    deadline_s: float | None = None
    """Wall-clock budget for the whole run; what is not asked by then stays missing (resumable)."""


@dataclass(frozen=True)
class ModelReport:
    """How calling one model went in this session."""

    model: str
    stats: CallStats
    stopped: str | None
    lowest_concurrency: int


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    run_dir: Path
    resumed: bool
    asked: int
    models: tuple[ModelReport, ...] = ()
    deadline_hit: bool = False


def fingerprint(plan: RunPlan) -> str:
    """Identity of a run: same task, paper, models, prompt and sampling → same fingerprint, so
    the same command finds an unfinished run and resumes it."""
    key = {
        "task": plan.task.name,
        "dataset_hash": plan.dataset_hash,
        "models": list(plan.models),
        "variant": plan.variant,
        "lang": plan.lang,
        "temperature": plan.params.temperature,
        "max_tokens": plan.params.max_tokens,
        "seed": plan.params.seed,
        "epochs": plan.epochs,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


def _run_info(plan: RunPlan, run_id: str) -> RunInfo:
    return RunInfo(
        run_id=run_id,
        task=plan.task.name,
        models=plan.models,
        dataset_hash=plan.dataset_hash,
        dataset_size=len(plan.samples),
        generator_version=plan.generator_version,
        prompt_variant=plan.variant,
        lang=plan.lang,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        params=plan.params,
        seed=plan.seed,
    )


def plan_from_store(store: RunStore, run_id: str, command: RunPlan) -> RunPlan:
    """The plan of a stored run, so a resume asks exactly the paper, models, prompt and sampling
    it started with; how to call (concurrency, retries, limits, timeout, deadline) comes from
    the command that resumes it."""
    info = store.run_info(run_id)
    epochs = store.run_config(run_id).get("epochs", 1)
    task = command.task if command.task.name == info.task else get_task(info.task)
    return replace(
        command,
        task=task,
        samples=tuple(store.samples(run_id)),
        dataset_hash=info.dataset_hash,
        generator_version=info.generator_version,
        models=info.models,
        variant=info.prompt_variant,
        lang=info.lang,
        params=replace(info.params, timeout_s=command.params.timeout_s),
        seed=info.seed,
        epochs=epochs if isinstance(epochs, int) else 1,
        source=command.source or str(store.run_config(run_id).get("source") or ""),
    )


def open_or_create_run(store: RunStore, plan: RunPlan, resume: str | None) -> tuple[str, bool]:
    if resume is not None:
        return store.resolve(resume), True
    fp = fingerprint(plan)
    found = store.find_resumable(fp)
    if found is not None:
        return found, True
    run_id = new_run_id(plan.task.name)
    config: dict[str, object] = {
        "task_version": plan.task.version,
        "source": plan.source,
        "concurrency": plan.concurrency,
        "retry": asdict(plan.retry),
        "params": asdict(plan.params),
        "epochs": plan.epochs,
    }
    store.create_run(_run_info(plan, run_id), plan.samples, fp, config)
    return run_id, False


def check_models(models: Sequence[str]) -> None:
    if not models:
        raise ConfigError("no model to evaluate")
    seen: set[str] = set()
    for m in models:
        if m in seen:
            raise ConfigError(f"model {m!r} is named twice")
        seen.add(m)


async def _ask_model(
    store: RunStore,
    run_id: str,
    plan: RunPlan,
    caller: ModelCaller,
    model: str,
    todo: Sequence[tuple[Sample, int]],
    on_result: OnResult | None,
) -> int:
    async def one(sample: Sample, epoch: int) -> None:
        prompt = plan.task.build_prompt(sample, plan.variant, plan.lang)
        result = await caller.call(prompt, plan.params)
        if isinstance(result, CallFailure):
            record = Record(
                run_id=run_id, model=model, sample_id=sample.id, status="call_failed", text="",
                finish_reason="unknown", usage=Usage(), latency_s=0.0, attempts=result.attempts,
                prompt_variant=plan.variant, lang=plan.lang,
                error=f"{result.error_type}: {result.error}", epoch=epoch,
            )  # fmt: skip
        else:
            c = result.completion
            record = Record(
                run_id=run_id, model=model, sample_id=sample.id, status="ok", text=c.text,
                finish_reason=c.finish_reason, usage=c.usage, latency_s=c.latency_s,
                attempts=result.attempts, prompt_variant=plan.variant, lang=plan.lang,
                reported_model=c.model, epoch=epoch,
            )  # fmt: skip
        # Committed before it is graded: the raw answer is never lost to a grading bug.
        store.add_records([record])
        if on_result is not None:
            on_result(model, plan.task.grade(record, sample))

    async with asyncio.TaskGroup() as group:
        for s, e in todo:
            group.create_task(one(s, e))
    return len(todo)


def _todo(
    store: RunStore, run_id: str, plan: RunPlan, model: str, retry_errors: bool
) -> list[tuple[Sample, int]]:
    by_id = {s.id: s for s in plan.samples}
    pairs = store.missing(run_id, model, plan.epochs)
    if retry_errors:
        failed = sorted(
            (r.sample_id, r.epoch)
            for r in store.records(run_id, model)
            if r.status == "call_failed"
        )
        pairs = [*pairs, *failed]
    return [(by_id[sid], ep) for sid, ep in pairs if sid in by_id]


async def execute(
    plan: RunPlan,
    *,
    resume: str | None = None,
    retry_errors: bool = False,
    providers: Mapping[str, Provider] | None = None,
    on_plan: OnPlan | None = None,
    on_result: OnResult | None = None,
) -> RunOutcome:
    """Ask what is missing (and, with `retry_errors`, what failed) and store every answer."""
    check_models(plan.models)
    own: list[Provider] = []
    given = providers or {}
    started = time.monotonic()
    try:
        with RunStore.open(plan.results_dir) as store:
            if resume is None:
                # Build every provider before a run exists: a bad model string stores nothing.
                built = {m: given.get(m) or _own(own, m) for m in plan.models}
            run_id, resumed = open_or_create_run(store, plan, resume)
            if resumed:
                plan = plan_from_store(store, run_id, plan)
            if resume is not None:
                built = {m: given.get(m) or _own(own, m) for m in plan.models}
            counts = store.count_records(run_id)
            todo = {m: _todo(store, run_id, plan, m, retry_errors) for m in plan.models}
            if on_plan is not None:
                on_plan(
                    run_id,
                    {m: (counts.get(m, 0) - _redo(todo[m], store, run_id, m), len(todo[m]))
                     for m in plan.models},
                )  # fmt: skip
            callers = {
                m: ModelCaller(
                    built[m],
                    concurrency=plan.concurrency,
                    policy=plan.retry,
                    limits=plan.limits,
                    breaker=CircuitBreaker(plan.breaker_threshold),
                    seed=i,
                )
                for i, m in enumerate(plan.models)
                if todo[m]
            }
            store.set_status(run_id, "running")
            deadline_hit = False
            try:
                work = _ask_all(store, run_id, plan, callers, todo, on_result)
                remaining = None
                if plan.deadline_s is not None:
                    remaining = max(0.0, plan.deadline_s - (time.monotonic() - started))
                asked = await asyncio.wait_for(work, timeout=remaining)
                store.set_status(run_id, "complete")
            except TimeoutError:
                deadline_hit, asked = True, 0
                store.set_status(run_id, "interrupted")
            except BaseException:
                store.set_status(run_id, "interrupted")
                raise
            reports = tuple(
                ModelReport(m, c.stats, c.breaker.reason, c.concurrency.lowest)
                for m, c in callers.items()
            )
            return RunOutcome(run_id, store.run_dir(run_id), resumed, asked, reports, deadline_hit)
    finally:
        for p in own:
            await p.aclose()


def _own(own: list[Provider], model: str) -> Provider:
    provider = make_provider(model)
    own.append(provider)
    return provider


def _redo(todo: Sequence[tuple[Sample, int]], store: RunStore, run_id: str, model: str) -> int:
    """How many of `todo` are stored already (failed calls asked again with --retry-errors)."""
    if not todo:
        return 0
    stored = {(r.sample_id, r.epoch) for r in store.records(run_id, model)}
    return sum((s.id, e) in stored for s, e in todo)


async def _ask_all(
    store: RunStore,
    run_id: str,
    plan: RunPlan,
    callers: Mapping[str, ModelCaller],
    todo: Mapping[str, Sequence[tuple[Sample, int]]],
    on_result: OnResult | None,
) -> int:
    async with asyncio.TaskGroup() as group:
        jobs = [
            group.create_task(_ask_model(store, run_id, plan, c, m, todo[m], on_result))
            for m, c in callers.items()
        ]
    return sum(j.result() for j in jobs)


def grade_run(store: RunStore, run_id: str, task: Task) -> tuple[RunInfo, list[GradedItem]]:
    """Re-grade every stored record of a run with `task`'s current rules; never calls a model."""
    info = store.run_info(run_id)
    by_id = {s.id: s for s in store.samples(run_id)}
    items: list[GradedItem] = []
    scores: list[tuple[str, str, int, Score]] = []
    for record in store.records(run_id):
        sample = by_id[record.sample_id]
        score = task.grade(record, sample)
        items.append(GradedItem(sample, record, score))
        scores.append((record.model, record.sample_id, record.epoch, score))
    store.save_scores(run_id, scores, grader_version=f"{task.name}/{task.version}")
    return info, items
