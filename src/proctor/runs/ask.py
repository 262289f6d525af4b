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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from proctor.calling.cache_key import ModelKeyer, cacheable, key_owner, reuses
from proctor.calling.caller import CallStats
from proctor.errors import ProctorError, StoreError
from proctor.executors import (
    AskSettings,
    Executor,
    LocalExecutor,
    ModelCalls,
    request_for,
)
from proctor.providers.base import Provider
from proctor.providers.keys import KeySource
from proctor.providers.registry import key_sources, make_provider
from proctor.runs import grade as grading
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
from proctor.store import RunStore, response_cache
from proctor.store.response_cache import CacheEntry
from proctor.store.run_store import DB_NAME, ScoreRow
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

    assert plan.batch is not None
    policy = plan.batch
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
            latency_s=0.0, attempts=1, prompt_variant=settings.variant, lang=settings.lang,
            error=f"BatchError: {accept_error(error)}", epoch=answer.epoch,
            batch_id=answer.batch_id,
        )  # fmt: skip
    return Record(
        run_id=settings.run_id, model=model, sample_id=answer.sample_id, status="ok",
        text=c.text, finish_reason=c.finish_reason, usage=c.usage, latency_s=c.latency_s,
        attempts=1, prompt_variant=settings.variant, lang=settings.lang,
        reported_model=c.model, epoch=answer.epoch, batch_id=answer.batch_id,
        notes="; ".join(c.notes),
    )  # fmt: skip


class _GroupCommit:
    """The run's store writer: one writer commits, in one transaction, every record (and every
    grade) queued since its last commit, off the event loop; each `commit` returns once its
    records are on disk.

    So a run pays one SQLite commit per batch, not per answer, while an answer is still never
    acknowledged (nor graded, nor its worker given a new item) before it is stored. The writer
    only commits: grading is `RunGrader`'s, and its grades come back here to be stored."""

    def __init__(self, store: RunStore, run_id: str, keys: _Keys | None = None) -> None:
        self._store = store
        self._run_id = run_id
        self._keys = keys or {}
        self._queue: list[tuple[_Batch, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    async def commit(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        if batch:
            await self._queued(_Batch(records=[r for r, _ in batch]))

    async def commit_scores(self, rows: Sequence[ScoreRow]) -> None:
        if rows:
            await self._queued(_Batch(scores=list(rows)))

    async def _queued(self, rows: _Batch) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((rows, done))
        self._wake.set()
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_loop())
        await done

    async def close(self) -> None:
        """Commit what is queued and stop the writer; waits for a write under way (the store's
        connection must not be used from two threads at once)."""
        self._closing = True
        self._wake.set()
        if self._writer is not None:
            await asyncio.wait([self._writer])

    async def _write_loop(self) -> None:
        while True:
            if not self._queue:
                if self._closing:
                    return
                await self._wake.wait()
                self._wake.clear()
                continue
            queued, self._queue = self._queue, []
            try:
                await asyncio.to_thread(self._write, [rows for rows, _ in queued])
                failure: Exception | None = None
            except Exception as e:
                failure = e
            for _, done in queued:
                if not done.done():
                    if failure is None:
                        done.set_result(None)
                    else:
                        done.set_exception(failure)

    def _write(self, queued: Sequence[_Batch]) -> None:
        # Committed before it is graded: the raw answer is never lost to a grading bug.
        records = [r for batch in queued for r in batch.records]
        self._store.add_records(records)
        if self._keys and records:
            # After the records' own commit: a kill in between costs a cache entry, never an
            # answer; so does a cache that cannot be written (a full disk says so at the next
            # records' commit), which is then given up for the rest of the run.
            try:
                response_cache.remember(
                    self._store,
                    (CacheEntry(*self._keys[k], r) for r in records
                     if (k := (r.model, r.sample_id, r.epoch)) in self._keys),
                )  # fmt: skip
            except StoreError:
                self._keys = {}
        self._store.add_scores(self._run_id, [s for batch in queued for s in batch.scores])


@dataclass(frozen=True)
class _Batch:
    """What one `commit` hands the writer: answers to store, or their grades."""

    records: list[Record] = field(default_factory=list)
    scores: list[ScoreRow] = field(default_factory=list)


_Keys = dict[tuple[str, str, int], tuple[str, str]]
"""(model, sample id, epoch) → (response cache key, key owner) of each request to be asked."""


def _cache_keys(
    settings: AskSettings,
    todo: Mapping[str, Sequence[tuple[Sample, int]]],
    sources: Mapping[str, KeySource],
) -> _Keys:
    keys: _Keys = {}
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
    keys: _Keys,
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
                    latency_s=cached.latency_s, attempts=0, prompt_variant=settings.variant,
                    lang=settings.lang,
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
    if not reuses(plan.cache, plan.params) or not (plan.results_dir / DB_NAME).is_file():
        return {}
    settings = AskSettings(
        run_id="", task=plan.task, variant=plan.variant, lang=plan.lang, params=plan.params
    )
    todo = {m: [(s, e) for s in plan.samples for e in range(plan.epochs)] for m in plan.models}
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
                store, [k for k, _ in asked], owner, any_owner=plan.cache_share_keys
            )
            found[model] = {(sid, e) for sid, e, k in wanted if k is not None and k[0] in hits}
    return found


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
    executor: Executor | None = None,
    on_stored: OnStored | None = None,
) -> RunOutcome:
    """Ask what is missing (and, with `retry_errors`, what failed) and store every answer.

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
            built = _providers(plan, given, own, keys, chosen.asks_here)
            check_capabilities(built)
            if plan.batch is not None:
                check_batchable(built)
        with RunStore.open(plan.results_dir) as store:
            run_id, resumed = open_or_create_run(store, plan, resume)
            if resumed:
                plan = plan_from_store(store, run_id, plan)
            if resume is not None:
                keys = run_keys(plan, given, check_set=check_set)
                built = _providers(plan, given, own, keys, chosen.asks_here)
                check_capabilities(built)
                if plan.batch is not None:
                    check_batchable(built)
            todo = {m: _todo(store, run_id, plan, m, retry_errors) for m in plan.models}
            settings = AskSettings(
                run_id=run_id, task=plan.task, variant=plan.variant, lang=plan.lang,
                params=plan.params, concurrency=plan.concurrency, retry=plan.retry,
                limits=plan.limits, breaker_threshold=plan.breaker_threshold,
                keys={m: keys[m] for m in plan.models if m in keys},
            )  # fmt: skip
            cache_keys: _Keys = {}
            reused: dict[str, int] = {}
            if plan.cache != "off":
                cache_keys = _cache_keys(settings, todo, keys)
            if reuses(plan.cache, plan.params):
                todo, reused = _reuse_cached(
                    store, settings, todo, cache_keys, plan.cache_share_keys
                )
            counts = store.count_records(run_id)
            if on_plan is not None:
                on_plan(
                    run_id,
                    {m: (counts.get(m, 0) - _redo(todo[m], store, run_id, m), len(todo[m]))
                     for m in plan.models},
                )  # fmt: skip
            grading.prepare(store, run_id, plan.task)
            sink = _GroupCommit(store, run_id, cache_keys)
            grader = grading.RunGrader(plan.task, sink.commit_scores, on_result)
            logged = answer_log(store.run_dir(run_id))

            async def commit(batch: Sequence[tuple[Record, Sample]]) -> None:
                await sink.commit(batch)  # stored first: a grader bug never loses an answer
                for stored in (logged, on_stored or (lambda _: None)):
                    stored(batch)
                grader.submit(batch)

            async def close() -> None:
                try:
                    await grader.close()
                finally:
                    await sink.close()

            store.set_status(run_id, "running")
            deadline_hit = False
            calls: dict[str, ModelCalls] = {}
            try:
                if plan.batch is not None:
                    work = _ask_in_batches(plan, settings, todo, built, commit)
                else:
                    work = chosen.run(settings, todo, built, commit)
                remaining = None
                if plan.deadline_s is not None:
                    remaining = max(0.0, plan.deadline_s - (time.monotonic() - started))
                calls = await asyncio.wait_for(work, timeout=remaining)
                missing = sum(c.left_missing for c in calls.values())
                asked = sum(len(t) for t in todo.values()) - missing
                await close()
                grading.grade_ungraded(store, run_id, plan.task)
                store.set_status(run_id, "interrupted" if missing else "complete")
            except TimeoutError:
                await close()
                grading.grade_ungraded(store, run_id, plan.task)
                deadline_hit, asked = True, 0
                store.set_status(run_id, "interrupted")
            except BaseException as e:
                # Stopped: the answers stored but not graded yet are graded when it resumes.
                grader.abandon()
                await sink.close()
                with contextlib.suppress(StoreError):  # e.g. the disk is full: say the first
                    store.set_status(run_id, "interrupted")
                failure = first_proctor_error(e)
                if failure is None:
                    raise
                raise failure from e
            reports = tuple(
                ModelReport(m, c.stats, c.stopped, c.lowest_concurrency, tuple(c.shard_failures))
                for m, c in calls.items()
            )
            return RunOutcome(
                run_id, store.run_dir(run_id), resumed, asked, reports, deadline_hit, keys, reused
            )
    finally:
        for p in own:
            await p.aclose()


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
    models = [m for m in (*plan.models, *plan.also_calls) if m not in given]
    return key_sources(models, plan.api_key_env, check_set=check_set)


def _providers(
    plan: RunPlan,
    given: Mapping[str, Provider],
    own: list[Provider],
    keys: Mapping[str, KeySource],
    asks_here: bool,
) -> dict[str, Provider]:
    """The providers that ask, per model; none when the executor's workers make their own."""
    if not asks_here:
        return dict(given)
    return {m: given.get(m) or _own(own, m, keys[m]) for m in plan.models}


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
