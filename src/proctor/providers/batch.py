"""The providers' batch APIs (OpenAI's Batch API, Anthropic's Message Batches), as one small
interface: submit many requests at once, ask how the batch is going, read its results.

An adapter only translates (requests to the batch's wire format, results back to Completions or
failure reasons) and classifies errors; when to submit, how often to poll, what a restart may
submit again: all of that is `proctor.calling.batching`, once, for both."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from proctor.errors import ProviderError, Transient
from proctor.providers.adapter import ChatApi
from proctor.providers.http import HttpReply, HttpRequest, JsonClient, redacted
from proctor.types import Completion, GenerationParams, Prompt

BATCH_TIMEOUT_S = 120.0
"""Per request of a batch API (an upload of 10,000 requests takes a while)."""
BATCH_MAX_BYTES = 1 << 30
"""The largest reply of a batch API read: a results file holds every answer of the batch (50,000
answers of a few kilobytes each), far more than one chat reply's cap."""

LIST_PAGES = 20
"""Pages of 100 batches a restart reads back to find a submit it never heard back from."""

BatchEnd = Literal["completed", "expired", "cancelled", "failed"]


@dataclass(frozen=True)
class BatchRequest:
    custom_id: str
    """Ours; ^[A-Za-z0-9_-]{1,64}$ (what both APIs accept)."""
    prompt: Prompt
    params: GenerationParams


@dataclass(frozen=True)
class BatchState:
    batch_id: str
    ended: BatchEnd | None
    """None while the provider is still working on it."""
    done: int
    total: int
    detail: str = ""
    """The provider's own word for its state ("in_progress", "finalizing", ...)."""


@dataclass(frozen=True)
class BatchResult:
    custom_id: str
    completion: Completion | None
    error: str = ""
    """Why there is no completion (the provider's error, "expired", "cancelled")."""


@dataclass(frozen=True)
class LedgerBatch:
    """A batch of a run as the store remembers it (`proctor.store.batches`)."""

    token: str
    batch_id: str
    """"" while its submit has not been answered."""
    requests: tuple[tuple[str, str, int], ...]
    """(custom id, sample id, epoch) of each request in it."""


@runtime_checkable
class BatchAPI(Protocol):
    async def submit(self, requests: Sequence[BatchRequest], token: str) -> str:
        """Submit one batch; its id. `token` is stored with it where the API allows (OpenAI's
        metadata) or in its custom ids, so `find` can tell whether a submit went through."""
        ...

    async def find(
        self, token: str, size: int, taken: frozenset[str] = frozenset()
    ) -> str | None:
        """The id of the batch submitted with `token` (of `size` requests), if the provider has
        one: how a restart learns whether a submit it never heard back from went through.
        `taken`: ids the run already knows as other submits' batches (never this one's)."""
        ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str) -> list[BatchResult]:
        """Every result the ended batch holds (succeeded and failed requests)."""
        ...

    async def cancel(self, batch_id: str) -> None: ...


BodyOf = Callable[[Prompt, GenerationParams], dict[str, Any]]
"""The live adapter's request body for a prompt (a batch sends the same body)."""


class BatchAdapter:
    """What both batch adapters hold: the live adapter's client, model, key and body maker; and
    what they do alike: one request of the API (`_call`), one line of a results file
    (`_result`), a batch's creation, state, listing and cancelling. A subclass says how its result
    line reads (`_read_result`), where its batches are (`BATCHES`) and which paths answer text
    (`TEXT_SUFFIX`); `api` (the live adapter's) how a status and a reply read."""

    TEXT_SUFFIX: ClassVar[str]
    """The paths ending so answer a results file's text (JSONL), not JSON."""
    BATCHES: ClassVar[str]
    """The path of the API's batches (a batch is BATCHES/ID)."""

    def __init__(
        self, client: JsonClient, model: str, secret: str, body_of: BodyOf, api: ChatApi
    ) -> None:
        self._client = client
        self._model = model
        self._secret = secret
        self._body_of = body_of
        self._api = api

    def _read_result(self, custom_id: str, data: dict[str, Any]) -> BatchResult:
        raise NotImplementedError

    async def _call(
        self,
        method: str,
        path: str,
        content: bytes | None = None,
        content_type: str = "application/json",
    ) -> Any:
        return await batch_call(
            self._client,
            self._secret,
            self._api.check,
            method,
            path,
            content,
            content_type,
            text=path.endswith(self.TEXT_SUFFIX),
        )

    def _result(self, line: str) -> BatchResult:
        """One line of a results file: its request's answer, or why there is none."""
        try:
            data = json.loads(line)
        except ValueError:
            return BatchResult("", None, "a result line is not JSON")
        if not isinstance(data, dict):
            return BatchResult("", None, "a result line is not an object")
        return self._read_result(str(data.get("custom_id") or ""), data)

    async def _create(
        self, path: str, content: bytes, content_type: str = "application/json"
    ) -> str:
        """POST a create (a batch, an uploaded file): the id it answered with."""
        return created_id(await self._call("POST", path, content, content_type))

    async def _batch(self, batch_id: str) -> tuple[dict[str, Any], dict[str, int]]:
        """GET one batch: the object (or Transient) and its request counts."""
        batch = await self._call("GET", f"{self.BATCHES}/{batch_id}")
        if not isinstance(batch, dict):
            raise Transient(f"batch {batch_id}: the state is not an object")
        return batch, request_counts(batch)

    async def _pages(self, cursor: str) -> AsyncIterator[list[Any]]:
        """The batches the API lists, a page of 100 at a time, `LIST_PAGES` pages at the most;
        `cursor` is the query parameter that asks for the page after a batch's id (the page's
        last: Anthropic's `last_id` is that id too)."""
        after = ""
        for _ in range(LIST_PAGES):
            page = await self._call(
                "GET", f"{self.BATCHES}?limit=100" + (f"&{cursor}={after}" if after else "")
            )
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list) or not data:
                return
            yield data
            if not page.get("has_more"):
                return
            after = str(data[-1].get("id")) if isinstance(data[-1], dict) else ""

    async def cancel(self, batch_id: str) -> None:
        await self._call("POST", f"{self.BATCHES}/{batch_id}/cancel", b"{}")

    def _failure(self, custom_id: str, reason: str) -> BatchResult:
        """A request's failure, its reason cut and the key redacted (servers echo what they got)."""
        clean = reason.replace(self._secret, "[redacted]") if self._secret else reason
        return BatchResult(custom_id, None, clean[:400])

    def _answered(self, custom_id: str, reply: object) -> BatchResult:
        """A succeeded request's reply as its Completion (a reply that holds none: its error)."""
        try:
            return BatchResult(custom_id, self._api.read(reply, self._model, 0.0, "batch"))
        except ProviderError as e:
            return BatchResult(custom_id, None, str(e))


@runtime_checkable
class BatchProvider(Protocol):
    def batches(self) -> BatchAPI: ...


async def batch_call(
    client: JsonClient,
    secret: str,
    check: Callable[[HttpReply], None],
    method: str,
    path: str,
    content: bytes | None = None,
    content_type: str = "application/json",
    *,
    text: bool = False,
) -> Any:
    """One request of a batch API: the reply's JSON (its text with `text`), errors classified by
    the adapter's `check` and the key redacted from them."""
    try:
        request = HttpRequest(method, path, content, content_type)
        resp = await client.send(request, BATCH_TIMEOUT_S, BATCH_MAX_BYTES)
        check(resp)
    except ProviderError as e:
        raise redacted(e, secret) from e.__cause__
    if text:
        return resp.text
    try:
        return resp.json()
    except ValueError as e:
        raise Transient(f"{method} {path}: HTTP {resp.status_code}: body is not JSON") from e


def created_id(reply: object) -> str:
    """The id of a batch (or file) a create answered with; Transient when it holds none."""
    found = reply.get("id") if isinstance(reply, dict) else None
    if not isinstance(found, str):
        raise Transient("the batch API answered a create without an id")
    return found


def request_counts(batch: dict[str, Any]) -> dict[str, int]:
    """A batch's request counts by kind; a count that is not a non-negative integer is 0."""
    counts = batch.get("request_counts")
    return {str(k): _count(v) for k, v in counts.items()} if isinstance(counts, dict) else {}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

