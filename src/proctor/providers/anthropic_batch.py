"""Anthropic's Message Batches API: requests posted to `/messages/batches` (each a custom id
and the Messages API body as `params`), the batch read from `/messages/batches/{id}`, its
results (JSONL, one per request: succeeded, errored, canceled or expired) from `.../results`.

The API keeps no metadata with a batch, so the submit token rides in every custom id
(`TOKEN-N`): `find` recognises a batch by its results once it has ended, and before that by its
request count among the batches the run does not already hold (submits are made one at a time,
so at most one was never heard back from). Translation and error classification only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proctor.errors import Transient
from proctor.providers.batch import (
    BatchAdapter,
    BatchEnd,
    BatchRequest,
    BatchResult,
    BatchState,
    count,
    created_id,
    failure,
)
from proctor.providers.http import encode_body, json_object

_LIST_PAGES = 20


class AnthropicBatches(BatchAdapter):
    TEXT_SUFFIX = "/results"

    async def submit(self, requests: Sequence[BatchRequest], token: str) -> str:
        body = {
            "requests": [
                {"custom_id": r.custom_id, "params": self._body_of(r.prompt, r.params)}
                for r in requests
            ]
        }
        batch = await self._call("POST", "messages/batches", encode_body(body))
        batch_id = created_id(batch)
        return batch_id

    async def find(
        self, token: str, size: int, taken: frozenset[str] = frozenset()
    ) -> str | None:
        after = ""
        for _ in range(_LIST_PAGES):
            page = await self._call(
                "GET", "messages/batches?limit=100" + (f"&after_id={after}" if after else "")
            )
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list) or not data:
                return None
            for batch in data:
                if not isinstance(batch, dict) or _total(batch) != size:
                    continue
                batch_id = str(batch.get("id"))
                if batch_id in taken:  # another submit's batch of the same size
                    continue
                if batch.get("processing_status") != "ended":
                    return batch_id  # the only evidence before it ends: its size (see above)
                if any(r.custom_id.startswith(f"{token}-") for r in await self.results(batch_id)):
                    return batch_id
            if not page.get("has_more"):
                return None
            after = str(page.get("last_id") or "")
        return None

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call("GET", f"messages/batches/{batch_id}")
        if not isinstance(batch, dict):
            raise Transient(f"batch {batch_id}: the state is not an object")
        counts = json_object(batch.get("request_counts"))
        status = str(batch.get("processing_status"))
        processing = count(counts.get("processing"))
        total = _total(batch)
        ended: BatchEnd | None = None
        if status == "ended":
            ended = (
                "expired"
                if count(counts.get("expired"))
                else "cancelled"
                if count(counts.get("canceled"))
                else "completed"
            )
        return BatchState(batch_id, ended, total - processing, total, status)

    async def results(self, batch_id: str) -> list[BatchResult]:
        text = await self._call("GET", f"messages/batches/{batch_id}/results")
        return [self._result(line) for line in str(text).splitlines() if line.strip()]

    def _read_result(self, custom_id: str, data: dict[str, Any]) -> BatchResult:
        result = json_object(data.get("result"))
        kind = str(result.get("type"))
        if kind == "succeeded":
            return self._answered(custom_id, result.get("message"))
        if kind == "errored":
            outer = json_object(result.get("error"))
            inner = json_object(outer.get("error")) or outer
            reason = f"{inner.get('type') or 'error'}: {inner.get('message') or ''}"
        else:
            reason = f"the request was {kind} before it was processed"
        return failure(custom_id, reason, self._secret)

    async def cancel(self, batch_id: str) -> None:
        await self._call("POST", f"messages/batches/{batch_id}/cancel", b"{}")


def _total(batch: dict[str, Any]) -> int:
    counts = batch.get("request_counts")
    if not isinstance(counts, dict):
        return 0
    keys = ("processing", "succeeded", "errored", "canceled", "expired")
    return sum(count(counts.get(k)) for k in keys)
