"""What every executor shares: the settings a worker needs, a work unit, and the one loop that
asks a model for a list of items and turns each reply into a Record."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from proctor._util.defaults import DEFAULT_MAX_FAILURES as DEFAULT_MAX_FAILURES
from proctor._util.variants import split_variant, variant_temperature
from proctor.calling.breaker import CircuitBreaker
from proctor.calling.caller import CallFailure, CallStats, ModelCaller
from proctor.calling.rate_limit import RateLimits
from proctor.calling.retry import RetryPolicy
from proctor.prompts.files import PromptFile
from proctor.providers.base import Provider
from proctor.providers.keys import KeySource
from proctor.providers.registry import with_calculator
from proctor.tasks.base import Task
from proctor.tasks.prompting import asked_prompt, grading_variant
from proctor.tools.calling_loop import CALCULATOR, call_with_calculator
from proctor.types import GenerationParams, Prompt, Record, Sample, Usage

Item = tuple[Sample, int]
"""One question to ask: a sample and its epoch."""

Commit = Callable[[Sequence[tuple[Record, Sample]]], Awaitable[None]]
"""Stores records (with their samples, for grading) and returns once they are committed."""



@dataclass(frozen=True)
class AskSettings:
    """Everything a worker needs to ask and to build records; picklable (Ray ships it)."""

    run_id: str
    task: Task
    variant: str
    lang: str
    params: GenerationParams
    concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limits: RateLimits = field(default_factory=RateLimits)
    breaker_threshold: int = DEFAULT_MAX_FAILURES
    keys: Mapping[str, KeySource] = field(default_factory=dict)
    """Per model, the variable its key is read from: names only, a worker reads its own env."""
    prompt_files: Mapping[str, PromptFile] = field(default_factory=dict)
    """The run's prompt files by key: a variant `MODEL#prompt=KEY` is asked with that text."""


@dataclass(frozen=True)
class WorkUnit:
    """One model and a shard of its missing items; `seed` seeds the caller's retry jitter."""

    model: str
    items: tuple[Item, ...]
    seed: int = 0


@dataclass(frozen=True)
class ShardFailure:
    """A shard of one model's items that failed on a worker: where, why, what became of it."""

    model: str
    shard: int
    """Its number among the model's shards, from 1."""
    unanswered: int
    """Items it had not sent back when it failed (what it had sent is stored)."""
    node: str
    """ "IP (node 1a2b3c4d)", or "" when it failed before it could say."""
    reason: str
    rerun: bool
    """True: its unanswered items were asked again elsewhere; False: left missing (`--resume`)."""
    failed_calls: int = 0
    """Calls it stored as `call_failed` (its server unreachable, a key refused…):
    `--retry-errors` asks them."""


@dataclass
class ModelCalls:
    """How calling one model went, summed over its work units."""

    stats: CallStats = field(default_factory=CallStats)
    stopped: str | None = None
    lowest_concurrency: int = 0
    shard_failures: list[ShardFailure] = field(default_factory=list)

    @property
    def left_missing(self) -> int:
        """Items of shards that failed for good: not stored, asked by a resume."""
        return sum(f.unanswered for f in self.shard_failures if not f.rerun)


@dataclass(frozen=True)
class AskJob:
    """What an executor is handed: the settings, each model's missing items (`todo`), the
    providers that ask (where the executor asks here) and where every record is committed."""

    settings: AskSettings
    todo: Mapping[str, Sequence[Item]]
    providers: Mapping[str, Provider]
    commit: Commit


class Executor(Protocol):
    asks_here: bool
    """Whether the providers it is handed are the ones that ask (else each worker makes its own,
    and the runner builds none: keys are then read where the asking happens)."""

    async def run(self, job: AskJob) -> dict[str, ModelCalls]:
        """Ask every model in `job.todo` for its items, `job.commit` every record, and report per
        model how calling it went. Models are numbered in `todo`'s order (their caller seeds)."""
        ...


def make_caller(provider: Provider, settings: AskSettings, seed: int) -> ModelCaller:
    return ModelCaller(
        provider,
        concurrency=settings.concurrency,
        policy=settings.retry,
        limits=settings.limits,
        breaker=CircuitBreaker(settings.breaker_threshold),
        seed=seed,
    )


def calls_of(caller: ModelCaller) -> ModelCalls:
    return ModelCalls(caller.stats, caller.breaker.reason, caller.concurrency.lowest)


def merge_calls(parts: Sequence[ModelCalls]) -> ModelCalls:
    out = ModelCalls(lowest_concurrency=min((p.lowest_concurrency for p in parts), default=0))
    for p in parts:
        s, t = out.stats, p.stats
        s.calls += t.calls
        s.attempts += t.attempts
        s.retries += t.retries
        s.rate_limited += t.rate_limited
        for k, v in t.failures_by_type.items():
            s.failures_by_type[k] = s.failures_by_type.get(k, 0) + v
        out.stopped = out.stopped or p.stopped
        out.shard_failures.extend(p.shard_failures)
    return out


async def ask_items(
    settings: AskSettings,
    caller: ModelCaller,
    model: str,
    items: Sequence[Item],
    commit: Commit,
) -> int:
    """Ask `model` for `items` with as many workers as the caller's concurrency ceiling.

    A worker takes its next item only once its last record is committed, so at any moment at
    most `ceiling` answers are unstored: a kill loses only those, never a committed one. (One
    task per worker, not per item: a run of 100,000 items holds 64 coroutines, not 100,000.)"""
    pending: Iterator[Item] = iter(items)

    async def worker() -> None:
        for sample, epoch in pending:
            record = await answer(settings, caller, model, sample, epoch)
            await commit(((record, sample),))

    width = min(caller.concurrency.ceiling, len(items))
    async with asyncio.TaskGroup() as group:
        for _ in range(width):
            group.create_task(worker())
    return len(items)


def asked_as(settings: AskSettings, model: str) -> tuple[str, str]:
    """The prompt (a task variant, or a prompt file's key) and language `model` is asked in:
    the run's, unless the model string is a variant of a prompt matrix (`MODEL#prompt=B`)."""
    _, prompt, lang = split_variant(model)
    return prompt or settings.variant, lang or settings.lang


def variant_of(settings: AskSettings, model: str) -> tuple[str, str]:
    """The prompt variant `model`'s replies are graded under (a prompt file's: the variant it
    names, else the task's default) and the language it is asked in; what its records hold."""
    prompt, lang = asked_as(settings, model)
    found = settings.prompt_files.get(prompt)
    return (prompt if found is None else grading_variant(settings.task, found)), lang


def request_for(
    settings: AskSettings, model: str, sample: Sample, epoch: int
) -> tuple[Prompt, GenerationParams]:
    """The prompt and parameters `model` is asked `sample`'s epoch `epoch` with (the response
    cache keys the same request)."""
    s = settings
    prompt = asked_prompt(s.task, s.prompt_files, *asked_as(s, model), sample)
    params = s.params
    temperature = variant_temperature(model)
    if temperature is not None:  # a variant of a temperature matrix
        params = replace(params, temperature=temperature)
    if epoch:
        # Repeated samples of one item need different seeds, or a seeded sampler (llama.cpp)
        # gives the same reply every time and pass@k / maj@N say nothing.
        params = replace(params, seed=(params.seed or 0) + epoch)
    if with_calculator(model):
        prompt = replace(prompt, tools=(CALCULATOR,))
    return prompt, params


async def answer(
    settings: AskSettings, caller: ModelCaller, model: str, sample: Sample, epoch: int
) -> Record:
    s = settings
    prompt, params = request_for(settings, model, sample, epoch)
    if with_calculator(model):
        result = await call_with_calculator(caller, prompt, params)
    else:
        result = await caller.call(prompt, params)
    if isinstance(result, CallFailure):
        return Record(
            run_id=s.run_id, model=model, sample_id=sample.id, status="call_failed", text="",
            finish_reason="unknown", usage=Usage(None, None), latency_s=0.0,
            attempts=result.attempts,
            prompt_variant=variant_of(s, model)[0], lang=variant_of(s, model)[1],
            error=f"{result.error_type}: {result.error}", epoch=epoch,
        )  # fmt: skip
    c = result.completion
    return Record(
        run_id=s.run_id, model=model, sample_id=sample.id, status="ok", text=c.text,
        finish_reason=c.finish_reason, usage=c.usage, latency_s=c.latency_s,
        attempts=result.attempts, prompt_variant=variant_of(s, model)[0],
        lang=variant_of(s, model)[1], reported_model=c.model, epoch=epoch, notes="; ".join(c.notes),
    )  # fmt: skip
