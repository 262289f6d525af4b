"""The only place that wires the stages together:

    dataset → prompt → call → store (raw record, committed) → extract → score → stats → report

`execute` asks each model only for what the store does not hold yet, so a run killed at any
moment and started again with the same command (or `--resume RUN`) loses nothing and asks
nothing twice. `grade_run` re-enters after the store and never calls a model."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from proctor.calling.caller import CallFailure, ModelCaller
from proctor.calling.retry import RetryPolicy
from proctor.errors import ConfigError
from proctor.providers.base import Provider
from proctor.providers.registry import make_provider
from proctor.stats.metrics import RunMetrics, summarize
from proctor.store import RunStore, new_run_id
from proctor.tasks.base import Task
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


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    run_dir: Path
    resumed: bool
    asked: int


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


def plan_from_store(store: RunStore, run_id: str, task: Task, results_dir: Path) -> RunPlan:
    """The plan of a stored run, so `--resume RUN` asks exactly the paper it started with."""
    info = store.run_info(run_id)
    epochs = store.run_config(run_id).get("epochs", 1)
    return RunPlan(
        task=task,
        samples=tuple(store.samples(run_id)),
        dataset_hash=info.dataset_hash,
        generator_version=info.generator_version,
        models=info.models,
        variant=info.prompt_variant,
        lang=info.lang,
        params=info.params,
        results_dir=results_dir,
        seed=info.seed,
        epochs=epochs if isinstance(epochs, int) else 1,
    )


def open_or_create_run(store: RunStore, plan: RunPlan, resume: str | None) -> tuple[str, bool]:
    if resume is not None:
        run_id = store.resolve(resume)
        return run_id, True
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
                run_id=run_id,
                model=model,
                sample_id=sample.id,
                status="call_failed",
                text="",
                finish_reason="unknown",
                usage=Usage(),
                latency_s=0.0,
                attempts=result.attempts,
                prompt_variant=plan.variant,
                lang=plan.lang,
                error=f"{result.error_type}: {result.error}",
                epoch=epoch,
            )
        else:
            c = result.completion
            record = Record(
                run_id=run_id,
                model=model,
                sample_id=sample.id,
                status="ok",
                text=c.text,
                finish_reason=c.finish_reason,
                usage=c.usage,
                latency_s=c.latency_s,
                attempts=result.attempts,
                prompt_variant=plan.variant,
                lang=plan.lang,
                reported_model=c.model,
                epoch=epoch,
            )
        # Committed before it is graded: the raw answer is never lost to a grading bug.
        store.add_records([record])
        if on_result is not None:
            on_result(model, plan.task.grade(record, sample))

    await asyncio.gather(*(one(s, e) for s, e in todo))
    return len(todo)


async def execute(
    plan: RunPlan,
    *,
    resume: str | None = None,
    providers: Mapping[str, Provider] | None = None,
    on_plan: OnPlan | None = None,
    on_result: OnResult | None = None,
) -> RunOutcome:
    if not plan.models:
        raise ConfigError("no model to evaluate")
    own: list[Provider] = []
    with RunStore.open(plan.results_dir) as store:
        run_id, resumed = open_or_create_run(store, plan, resume)
        if resumed:
            plan = plan_from_store(store, run_id, plan.task, plan.results_dir)
        by_id = {s.id: s for s in plan.samples}
        todo: dict[str, list[tuple[Sample, int]]] = {}
        counts = store.count_records(run_id)
        for model in plan.models:
            todo[model] = [
                (by_id[sid], ep) for sid, ep in store.missing(run_id, model, plan.epochs)
            ]
        if on_plan is not None:
            on_plan(run_id, {m: (counts.get(m, 0), len(todo[m])) for m in plan.models})
        callers: list[tuple[str, ModelCaller]] = []
        try:
            for i, model in enumerate(plan.models):
                if not todo[model]:
                    continue
                provider = (providers or {}).get(model)
                if provider is None:
                    provider = make_provider(model)
                    own.append(provider)
                callers.append(
                    (
                        model,
                        ModelCaller(
                            provider,
                            concurrency=plan.concurrency,
                            policy=plan.retry,
                            seed=i,
                        ),
                    )
                )
            store.set_status(run_id, "running")
            asked = sum(
                await asyncio.gather(
                    *(
                        _ask_model(store, run_id, plan, caller, model, todo[model], on_result)
                        for model, caller in callers
                    )
                )
            )
            store.set_status(run_id, "complete")
        except BaseException:
            store.set_status(run_id, "interrupted")
            raise
        finally:
            for p in own:
                await p.aclose()
        return RunOutcome(run_id, store.run_dir(run_id), resumed, asked)


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


def metrics_for(items: Sequence[GradedItem]) -> RunMetrics:
    return summarize(items)
