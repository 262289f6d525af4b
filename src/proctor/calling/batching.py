"""Asking a model through its provider's batch API (`proctor run --batch`), for every provider:

    remember the batch (token, requests) → submit → remember its id → poll with backoff
    → when it ends, read every result → hand them on (records) → remember it collected

Every step that changes the provider's state is written down before and after it happens (the
`BatchLedger`, the run store), so a run killed at any moment and started again:
- polls the batches it had submitted instead of submitting their requests again;
- for a batch whose submit it never heard back from, asks the provider whether one with its
  token exists (`BatchAPI.find`) and adopts it, or submits it then;
- submits new batches only for requests that are in no batch of the run.
A request the batch could not answer (an error, expiry, cancellation, no result at all) comes
back as a failure with the provider's reason (a `call_failed` record), which `--retry-errors`
puts in a new batch. Nothing here knows about the store or records: the runner wires it."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, TypeVar

from proctor.errors import AuthError, ProviderError
from proctor.providers.batch import BatchAPI, BatchRequest, BatchResult, LedgerBatch
from proctor.types import GenerationParams, Prompt

Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")


class BatchLedger(Protocol):
    def open_batches(self, model: str) -> list[LedgerBatch]: ...

    def intend(self, model: str, token: str, requests: Sequence[tuple[str, str, int]]) -> None: ...

    def submitted(self, model: str, token: str, batch_id: str) -> None: ...

    def collected(self, model: str, token: str, detail: str) -> None: ...

    def abandoned(self, model: str, token: str, detail: str) -> None: ...


@dataclass(frozen=True)
class BatchItem:
    sample_id: str
    epoch: int
    prompt: Prompt
    params: GenerationParams


@dataclass(frozen=True)
class BatchAnswer:
    """One request's result, with where it came from."""

    sample_id: str
    epoch: int
    batch_id: str
    result: BatchResult


OnAnswers = Callable[[Sequence[BatchAnswer]], Awaitable[None]]


@dataclass(frozen=True)
class BatchPolicy:
    size: int = 10_000
    """Requests per batch (OpenAI takes up to 50,000, Anthropic 100,000)."""
    first_poll_s: float = 5.0
    max_poll_s: float = 300.0
    factor: float = 1.5
    submit_attempts: int = 4
    """Attempts of one submit (or state read) that fails with a retryable error."""


@dataclass
class BatchStats:
    batches_submitted: int = 0
    batches_adopted: int = 0
    """Batches a restart found already submitted (by their token) and polled instead."""
    batches_resumed: int = 0
    requests_submitted: int = 0
    polls: int = 0
    failed: int = 0
    failures_by_type: dict[str, int] = field(default_factory=dict)


async def ask_in_batches(
    api: BatchAPI,
    ledger: BatchLedger,
    model: str,
    items: Sequence[BatchItem],
    on_answers: OnAnswers,
    policy: BatchPolicy | None = None,
    *,
    sleep: Sleep = asyncio.sleep,
) -> BatchStats:
    """Ask `items` in batches, resuming the run's open batches; `on_answers` gets each ended
    batch's results (and must have stored them when it returns)."""
    policy = policy or BatchPolicy()
    stats = BatchStats()
    wanted = {(i.sample_id, i.epoch): i for i in items}
    opened: list[LedgerBatch] = []  # submitted: each has its batch id
    covered: set[tuple[str, int]] = set()
    held = ledger.open_batches(model)
    taken = {k.batch_id for k in held if k.batch_id}  # never adopted for another submit
    for known in held:
        live = tuple(r for r in known.requests if (r[1], r[2]) in wanted)
        covered.update((s, e) for _, s, e in known.requests)
        batch_id = known.batch_id
        if not batch_id:
            found = await _retrying(
                partial(api.find, known.token, len(known.requests), frozenset(taken)), policy
            )
            if found is not None:
                batch_id = found
                taken.add(found)
                ledger.submitted(model, known.token, found)
                stats.batches_adopted += 1
            elif live:
                # Never reached the provider: submit it now, under the same token.
                reqs = [_request(cid, wanted[(s, e)]) for cid, s, e in live]
                batch_id = await _submit(api, ledger, model, known.token, reqs, policy, stats,
                                         on_answers, live)
                if not batch_id:
                    continue
            else:
                ledger.abandoned(model, known.token, "nothing left to ask")
                continue
        else:
            stats.batches_resumed += 1
        opened.append(LedgerBatch(known.token, batch_id, known.requests))
    fresh = [i for key, i in wanted.items() if key not in covered]
    for start in range(0, len(fresh), policy.size):
        chunk = fresh[start : start + policy.size]
        token = secrets.token_hex(6)
        listed = tuple((f"{token}-{n}", i.sample_id, i.epoch) for n, i in enumerate(chunk))
        ledger.intend(model, token, listed)
        reqs = [_request(cid, i) for (cid, _, _), i in zip(listed, chunk, strict=True)]
        batch_id = await _submit(api, ledger, model, token, reqs, policy, stats, on_answers, listed)
        if batch_id:
            opened.append(LedgerBatch(token, batch_id, listed))
    await _collect(api, ledger, model, opened, on_answers, policy, stats, sleep)
    return stats


def _request(custom_id: str, item: BatchItem) -> BatchRequest:
    return BatchRequest(custom_id, item.prompt, item.params)


async def _retrying(call: Callable[[], Awaitable[T]], policy: BatchPolicy) -> T:
    delay = 1.0
    for attempt in range(1, policy.submit_attempts + 1):
        try:
            return await call()
        except AuthError:
            raise
        except ProviderError as e:
            if not e.retryable or attempt == policy.submit_attempts:
                raise
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


async def _submit(
    api: BatchAPI,
    ledger: BatchLedger,
    model: str,
    token: str,
    reqs: Sequence[BatchRequest],
    policy: BatchPolicy,
    stats: BatchStats,
    on_answers: OnAnswers,
    listed: Sequence[tuple[str, str, int]],
) -> str:
    """The new batch's id; "" when it could not be submitted (its requests then fail)."""
    try:
        found = await _retrying(partial(api.submit, reqs, token), policy)
    except ProviderError as e:
        if isinstance(e, AuthError):
            raise
        reason = f"{type(e).__name__}: the batch could not be submitted: {e}"
        await on_answers(
            [BatchAnswer(s, ep, "", BatchResult(cid, None, reason)) for cid, s, ep in listed]
        )
        ledger.abandoned(model, token, reason)
        _count(stats, type(e).__name__, len(listed))
        return ""
    batch_id = found
    ledger.submitted(model, token, batch_id)
    stats.batches_submitted += 1
    stats.requests_submitted += len(reqs)
    return batch_id


def _count(stats: BatchStats, kind: str, n: int) -> None:
    stats.failed += n
    stats.failures_by_type[kind] = stats.failures_by_type.get(kind, 0) + n


async def _collect(
    api: BatchAPI,
    ledger: BatchLedger,
    model: str,
    opened: list[LedgerBatch],
    on_answers: OnAnswers,
    policy: BatchPolicy,
    stats: BatchStats,
    sleep: Sleep,
) -> None:
    delay = policy.first_poll_s
    while opened:
        still: list[LedgerBatch] = []
        for batch in opened:
            stats.polls += 1
            state = await _retrying(partial(api.state, batch.batch_id), policy)
            ended = state.ended
            if ended is None:
                still.append(batch)
                continue
            results = await _retrying(partial(api.results, batch.batch_id), policy)
            await on_answers(_answers(batch, results, ended))
            failed = sum(1 for r in results if r.completion is None)
            missing = len(batch.requests) - len({r.custom_id for r in results})
            if failed or missing > 0:
                _count(stats, f"Batch{ended.capitalize()}", failed + max(missing, 0))
            ledger.collected(model, batch.token, f"{ended}: {len(results)} results")
        opened = still
        if opened:
            await sleep(delay)
            delay = min(policy.max_poll_s, delay * policy.factor)


def _answers(batch: LedgerBatch, results: Sequence[BatchResult], ended: str) -> list[BatchAnswer]:
    by_id = {r.custom_id: r for r in results}
    out = []
    for custom_id, sample_id, epoch in batch.requests:
        result = by_id.get(custom_id)
        if result is None:
            result = BatchResult(
                custom_id, None, f"the batch ended ({ended}) without a result for this request"
            )
        out.append(BatchAnswer(sample_id, epoch, batch.batch_id, result))
    return out
