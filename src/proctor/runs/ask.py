"""The only place that wires the stages together:

    dataset → prompt → call → store (raw record, committed) → extract → score → stats → report

`execute` asks each model only for what the store does not hold yet, so a run killed at any
moment and started again with the same command (or `--resume RUN`) loses nothing and asks
nothing twice. Each answer is graded once, as it is stored, by the grading room
(`proctor.runs.grade`), and its grade stored beside it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from proctor._util.variants import variant_temperature
from proctor.calling.cache_key import ModelKeyer, cacheable, key_owner, reuses
from proctor.calling.caller import CallStats
from proctor.errors import ProctorError, StoreError
from proctor.executors import (
    AskJob,
    AskSettings,
    Executor,
    LocalExecutor,
    ModelCalls,
    request_for,
    variant_of,
)
from proctor.providers.base import Provider
from proctor.providers.keys import KeySource
from proctor.providers.registry import key_sources, make_provider
from proctor.runs import grade as grading
from proctor.runs import traces
from proctor.runs.answer_log import OnStored, answer_log
from proctor.runs.plan import (
    ModelReport,
    OnPlan,
    OnResult,
    RunOutcome,
    RunPlan,
    check_batchable,
    check_capabilities,
    check_models,
    open_or_create_run,
    plan_from_store,
)
from proctor.runs.writer import CacheKeys, GroupCommit
from proctor.store import RunStore, response_cache
from proctor.store.run_store import DB_NAME
from proctor.types import Record, Sample, Usage

if TYPE_CHECKING:  # `--batch` only: a run without it imports none of the batch machinery
    from proctor.calling.batching import BatchAnswer

async def _ask_in_batches(
    plan: RunPlan,
    settings: AskSettings,
    todo: Mapping[str, Sequence[tuple[Sample, int]]],
    providers: Mapping[str, Provider],
    commit: Callable[[Sequence[tuple[Record, Sample]]], Awaitable[None]],
) -> dict[str, ModelCalls]:
    """Every model's missing items through its provider's batch API (`calling.batching`); the
    batches are remembered in the store through a connection of their own (the group commit
    writes records from its thread)."""
    from proctor.calling.batching import BatchItem, ask_in_batches
    from proctor.providers.batch import BatchProvider
    from proctor.store.batches import StoreBatchLedger

    assert plan.calling.batch is not None
    policy = plan.calling.batch
    calls: dict[str, ModelCalls] = {}
    with RunStore.open(plan.results_dir) as own:
        ledger = StoreBatchLedger(own, settings.run_id)

        async def one(model: str) -> None:
            provider = providers[model]
            assert isinstance(provider, BatchProvider)
            samples = {(s.id, e): s for s, e in todo[model]}
            items = [
                BatchItem(s.id, e, *request_for(settings, model, s, e)) for s, e in todo[model]
            ]

            async def on_answers(answers: Sequence[BatchAnswer]) -> None:
                await commit([
                    (_batch_record(settings, model, a), samples[(a.sample_id, a.epoch)])
                    for a in answers if (a.sample_id, a.epoch) in samples
                ])  # fmt: skip

            stats = await ask_in_batches(provider.batches(), ledger, model, items, on_answers,
                                         policy)  # fmt: skip
            calls[model] = ModelCalls(
                CallStats(
                    calls=len(items),
                    attempts=stats.requests_submitted,
                    failures_by_type=dict(stats.failures_by_type),
                )
            )

        async with asyncio.TaskGroup() as group:
            for model in plan.models:
                if todo.get(model):
                    group.create_task(one(model))
    return calls


def _batch_record(settings: AskSettings, model: str, answer: BatchAnswer) -> Record:
    # A batch's answers pass the same boundary as a live call's (size cap, Unicode repaired,
    # keys scrubbed, counts checked) before they are stored: a server echoes keys either way.
    from proctor.calling.boundary import accept, accept_error
    from proctor.errors import BadReply

    c, error = answer.result.completion, answer.result.error
    if c is not None:
        try:
            c = accept(c, settings.params.max_reply_bytes)
        except BadReply as e:
            c, error = None, str(e)
    if c is None:
        return Record(
            run_id=settings.run_id, model=model, sample_id=answer.sample_id,
            status="call_failed", text="", finish_reason="unknown", usage=Usage(),
            latency_s=0.0, attempts=1, prompt_variant=variant_of(settings, model)[0],
            lang=variant_of(settings, model)[1], error=f"BatchError: {accept_error(error)}",
            epoch=answer.epoch,
            batch_id=answer.batch_id,
        )  # fmt: skip
    return Record(
        run_id=settings.run_id, model=model, sample_id=answer.sample_id, status="ok",
        text=c.text, finish_reason=c.finish_reason, usage=c.usage, latency_s=c.latency_s,
        attempts=1, prompt_variant=variant_of(settings, model)[0],
        lang=variant_of(settings, model)[1], reported_model=c.model, epoch=answer.epoch,
        batch_id=answer.batch_id,
        notes="; ".join(c.notes),
    )  # fmt: skip


def _cache_keys(
    settings: AskSettings,
    todo: Mapping[str, Sequence[tuple[Sample, int]]],
    sources: Mapping[str, KeySource],
) -> CacheKeys:
    keys: CacheKeys = {}
    for model, items in todo.items():
        source = sources.get(model)
        secret = source.read() if source is not None else None
        if not items or not cacheable(model) or (source is not None and source.var and not secret):
            continue  # a key this process cannot read has an owner it cannot name: no cache
        keyer, owner = ModelKeyer.of(model), key_owner(secret)
        for sample, epoch in items:
            prompt, params = request_for(settings, model, sample, epoch)
            keys[(model, sample.id, epoch)] = (keyer.key(prompt, params, epoch), owner)
    return keys


def _reuse_cached(
    store: RunStore,
    settings: AskSettings,
    todo: Mapping[str, list[tuple[Sample, int]]],
    keys: CacheKeys,
    any_owner: bool,
) -> tuple[dict[str, list[tuple[Sample, int]]], dict[str, int]]:
    """Store, as this run's records, the cached answer of every item the cache holds; what is
    left to ask, and per model how many were reused."""
    left: dict[str, list[tuple[Sample, int]]] = {}
    reused: dict[str, int] = {}
    for model, items in todo.items():
        if not all((model, s.id, e) in keys for s, e in items):
            left[model] = list(items)  # not cacheable: asked as always
            continue
        wanted = [keys[(model, s.id, e)] for s, e in items]
        owner = wanted[0][1] if wanted else ""
        found = response_cache.lookup(store, [k for k, _ in wanted], owner, any_owner=any_owner)
        hits: list[Record] = []
        left[model] = []
        for (sample, epoch), (key, _) in zip(items, wanted, strict=True):
            cached = found.get(key)
            if cached is None:
                left[model].append((sample, epoch))
                continue
            hits.append(
                Record(
                    run_id=settings.run_id, model=model, sample_id=sample.id, status="ok",
                    text=cached.text, finish_reason=cached.finish_reason, usage=cached.usage,
                    latency_s=cached.latency_s, attempts=0,
                    prompt_variant=variant_of(settings, model)[0],
                    lang=variant_of(settings, model)[1],
                    reported_model=cached.reported_model, epoch=epoch,
                    cached_from=cached.source_run,
                )
            )  # fmt: skip
        store.add_records(hits)
        reused[model] = len(hits)
    return left, reused


def reusable(plan: RunPlan, sources: Mapping[str, KeySource]) -> dict[str, set[tuple[str, int]]]:
    """Per model, the (sample id, epoch) pairs a new run of `plan` would take from the results
    folder's response cache instead of asking (`proctor run --estimate`); reads only, creates no
    store and marks nothing used."""
    if not any(_reuses(plan, m) for m in plan.models):
        return {}
    if not (plan.results_dir / DB_NAME).is_file():
        return {}
    settings = AskSettings(
        run_id="", task=plan.task, variant=plan.variant, lang=plan.lang, params=plan.params,
        prompt_files=plan.prompt_files,
    )
    todo = {
        m: [(s, e) for s in plan.samples for e in range(plan.calling.epochs)]
        for m in plan.models
        if _reuses(plan, m)
    }
    keys = _cache_keys(settings, todo, sources)
    found: dict[str, set[tuple[str, int]]] = {}
    with RunStore.open(plan.results_dir) as store:
        for model, items in todo.items():
            wanted = [(s.id, e, keys.get((model, s.id, e))) for s, e in items]
            asked = [k for _, _, k in wanted if k is not None]
            if not asked:
                continue  # not cacheable: every item is asked
            owner = asked[0][1]
            hits = response_cache.held(
                store, [k for k, _ in asked], owner, any_owner=plan.calling.cache_share_keys
            )
            found[model] = {(sid, e) for sid, e, k in wanted if k is not None and k[0] in hits}
    return found


def _todo(
    store: RunStore,
    run_id: str,
    plan: RunPlan,
    model: str,
    retry_errors: bool,
    only: frozenset[str] | None = None,
) -> list[tuple[Sample, int]]:
    by_id = {s.id: s for s in plan.samples if only is None or s.id in only}
    pairs = store.missing(run_id, model, plan.calling.epochs)
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
    executor: Executor | None = None,
    only: frozenset[str] | None = None,
    on_stored: OnStored | None = None,
) -> RunOutcome:
    """Ask what is missing (and, with `retry_errors`, what failed) and store every answer;
    with `only`, just those sample ids (a sequential run asks its items batch by batch).

    `executor` says who asks (default: `LocalExecutor`, this event loop); whoever asks, every
    record comes back here and is committed to the store by this process, then appended to
    the run's samples.jsonl and handed to `on_stored`."""
    check_models(plan.models)
    own: list[Provider] = []
    given = providers or {}
    started = time.monotonic()
    chosen = executor or LocalExecutor()
    # A key the key rule refuses writes nothing, not even a store. Workers elsewhere read keys
    # from their own environment: only a run asked here needs the named variables set here.
    check_set = chosen.asks_here
    keys = run_keys(plan, given, check_set=check_set) if resume is None else {}
    try:
        if resume is None:
            # Every provider is built and checked before the store is opened: a bad model
            # string, a missing key or a model that cannot do the run writes nothing.
            built = _checked_providers(plan, given, own, keys, chosen.asks_here)
        with RunStore.open(plan.results_dir) as store:
            run_id, resumed = open_or_create_run(store, plan, resume)
            if resumed:
                plan = plan_from_store(store, run_id, plan)
            if resume is not None:
                keys = run_keys(plan, given, check_set=check_set)
                built = _checked_providers(plan, given, own, keys, chosen.asks_here)
            todo = {m: _todo(store, run_id, plan, m, retry_errors, only) for m in plan.models}
            settings = _settings(plan, run_id, keys)
            todo, cache_keys, reused = _from_cache(store, plan, settings, todo, keys)
            if on_plan is not None:
                on_plan(run_id, _planned(store, run_id, plan.models, todo))
            spans = traces.open_spans(plan, settings, resumed)
            asking = _Asking(store, plan, settings, todo, cache_keys, built, started, on_stored,
                             spans)  # fmt: skip
            try:
                calls, asked, deadline_hit = await _ask_and_grade(asking, chosen, on_result)
            except BaseException:
                traces.close_spans(spans, stopped=True)
                raise
            said = traces.close_spans(spans)
            reports = tuple(
                ModelReport(m, c.stats, c.stopped, c.lowest_concurrency, tuple(c.shard_failures))
                for m, c in calls.items()
            )
            return RunOutcome(run_id, store.run_dir(run_id), resumed, asked, reports,
                              deadline_hit, keys, reused, said)  # fmt: skip
    finally:
        for p in own:
            await p.aclose()


def _checked_providers(
    plan: RunPlan,
    given: Mapping[str, Provider],
    own: list[Provider],
    keys: Mapping[str, KeySource],
    asks_here: bool,
) -> dict[str, Provider]:
    """The providers that ask, per model, each checked able to do the run (and to batch, with
    --batch); only those handed in when the executor's workers make their own."""
    if asks_here:
        built = {m: given.get(m) or _own(own, m, keys[m]) for m in plan.models}
    else:
        built = dict(given)
    check_capabilities(built)
    if plan.calling.batch is not None:
        check_batchable(built)
    return built


def _settings(plan: RunPlan, run_id: str, keys: Mapping[str, KeySource]) -> AskSettings:
    return AskSettings(
        run_id=run_id, task=plan.task, variant=plan.variant, lang=plan.lang,
        params=plan.params, concurrency=plan.calling.concurrency, retry=plan.calling.retry,
        limits=plan.calling.limits, breaker_threshold=plan.calling.breaker_threshold,
        keys={m: keys[m] for m in plan.models if m in keys}, prompt_files=plan.prompt_files,
    )  # fmt: skip


def _from_cache(
    store: RunStore,
    plan: RunPlan,
    settings: AskSettings,
    todo: dict[str, list[tuple[Sample, int]]],
    keys: Mapping[str, KeySource],
) -> tuple[dict[str, list[tuple[Sample, int]]], CacheKeys, dict[str, int]]:
    """What is left to ask once the response cache's answers are stored, the cache key of each
    request (for the writer to remember its answer) and per model how many were reused."""
    cache_keys: CacheKeys = {}
    reused: dict[str, int] = {}
    if plan.calling.cache != "off":
        cache_keys = _cache_keys(settings, todo, keys)
    if any(_reuses(plan, m) for m in todo):
        reusing = {m: items for m, items in todo.items() if _reuses(plan, m)}
        share = plan.calling.cache_share_keys
        left, reused = _reuse_cached(store, settings, reusing, cache_keys, share)
        todo = {m: left.get(m, items) for m, items in todo.items()}
    return todo, cache_keys, reused


def _reuses(plan: RunPlan, model: str) -> bool:
    """Whether `model`'s answers are read from the cache: by the run's temperature, or by its
    own where it is a variant of a temperature matrix."""
    own = variant_temperature(model)
    params = plan.params if own is None else replace(plan.params, temperature=own)
    return reuses(plan.calling.cache, params)


def _planned(
    store: RunStore,
    run_id: str,
    models: Sequence[str],
    todo: Mapping[str, Sequence[tuple[Sample, int]]],
) -> dict[str, tuple[int, int]]:
    """Per model, (answers stored and not asked again, answers to ask) for `on_plan`."""
    counts = store.count_records(run_id)
    return {
        m: (counts.get(m, 0) - _redo(todo[m], store, run_id, m), len(todo[m])) for m in models
    }


@dataclass(frozen=True)
class _Asking:
    """What one session of asking works on: the open store, the plan, what to ask and who asks."""

    store: RunStore
    plan: RunPlan
    settings: AskSettings
    todo: Mapping[str, list[tuple[Sample, int]]]
    cache_keys: CacheKeys
    providers: Mapping[str, Provider]
    started: float
    """time.monotonic() when the run started, for its deadline."""
    on_stored: OnStored | None = None
    """Told of each batch of answers once stored (`--json`'s answer events)."""
    spans: traces.Spans | None = None
    """The session's spans (`--otel-endpoint`), told of each answer and grade once stored."""


async def _ask_and_grade(
    a: _Asking, chosen: Executor, on_result: OnResult | None
) -> tuple[dict[str, ModelCalls], int, bool]:
    """Ask every item to ask (through the batch APIs with --batch), each answer stored, then
    graded as it comes, and set the run's status; (calls per model, how many were asked,
    whether the deadline stopped it)."""
    store, plan, run_id = a.store, a.plan, a.settings.run_id
    grading.prepare(store, run_id, plan.task)
    sink = GroupCommit(store, run_id, a.cache_keys)
    grader = grading.RunGrader(plan.task, traces.saving(sink.commit_scores, a.spans), on_result)
    logged = answer_log(store.run_dir(run_id))

    async def commit(batch: Sequence[tuple[Record, Sample]]) -> None:
        await sink.commit(batch)  # stored first: a grader bug never loses an answer
        for stored in (logged, a.on_stored or (lambda _: None), traces.on_stored(a.spans)):
            stored(batch)
        grader.submit(batch)

    async def close() -> None:
        try:
            await grader.close()
        finally:
            logged.close()
            await sink.close()

    store.set_status(run_id, "running")
    try:
        if plan.calling.batch is not None:
            work = _ask_in_batches(plan, a.settings, a.todo, a.providers, commit)
        else:
            work = chosen.run(AskJob(a.settings, a.todo, a.providers, commit))
        remaining = None
        if plan.calling.deadline_s is not None:
            remaining = max(0.0, plan.calling.deadline_s - (time.monotonic() - a.started))
        calls = await asyncio.wait_for(work, timeout=remaining)
        missing = sum(c.left_missing for c in calls.values())
        asked = sum(len(t) for t in a.todo.values()) - missing
        await close()
        grading.grade_ungraded(store, run_id, plan.task)
        store.set_status(run_id, "interrupted" if missing else "complete")
        return calls, asked, False
    except TimeoutError:
        await close()
        grading.grade_ungraded(store, run_id, plan.task)
        store.set_status(run_id, "interrupted")
        return {}, 0, True
    except BaseException as e:
        # Stopped: the answers stored but not graded yet are graded when it resumes.
        grader.abandon()
        logged.close()
        await sink.close()
        with contextlib.suppress(StoreError):  # e.g. the disk is full: say the first
            store.set_status(run_id, "interrupted")
        failure = first_proctor_error(e)
        if failure is None:
            raise
        raise failure from e


def first_proctor_error(error: BaseException) -> ProctorError | None:
    """The first ProctorError inside the exception groups that task groups raise (one worker's
    StoreError ends every worker), so the user reads one line, not a group's traceback."""
    if isinstance(error, ProctorError):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = first_proctor_error(inner)
            if found is not None:
                return found
    return None


def run_keys(
    plan: RunPlan, given: Mapping[str, Provider], *, check_set: bool = True
) -> dict[str, KeySource]:
    """Where each model's key comes from (its judge's included; providers handed in built are
    their maker's business); ConfigError, before any call, when the key rule refuses."""
    models = [m for m in (*plan.models, *plan.calling.also_calls) if m not in given]
    return key_sources(models, plan.calling.api_key_env, check_set=check_set)


def _own(own: list[Provider], model: str, key: KeySource) -> Provider:
    provider = make_provider(model, key)
    own.append(provider)
    return provider


def _redo(todo: Sequence[tuple[Sample, int]], store: RunStore, run_id: str, model: str) -> int:
    """How many of `todo` are stored already (failed calls asked again with --retry-errors)."""
    if not todo:
        return 0
    stored = {(r.sample_id, r.epoch) for r in store.records(run_id, model)}
    return sum((s.id, e) in stored for s, e in todo)
