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

from proctor.providers.batch import (
    BatchAdapter,
    BatchEnd,
    BatchRequest,
    BatchResult,
    BatchState,
    request_counts,
)
from proctor.providers.http import encode_body, json_object


class AnthropicBatches(BatchAdapter):
    BATCHES = "messages/batches"
    TEXT_SUFFIX = "/results"

    async def submit(self, requests: Sequence[BatchRequest], token: str) -> str:
        body = {
            "requests": [
                {"custom_id": r.custom_id, "params": self._body_of(r.prompt, r.params)}
                for r in requests
            ]
        }
        return await self._create("messages/batches", encode_body(body))

    async def find(
        self, token: str, size: int, taken: frozenset[str] = frozenset()
    ) -> str | None:
        async for data in self._pages("after_id"):
            for batch in data:
                if not isinstance(batch, dict) or _total(request_counts(batch)) != size:
                    continue
                batch_id = str(batch.get("id"))
                if batch_id in taken:  # another submit's batch of the same size
                    continue
                if batch.get("processing_status") != "ended":
                    return batch_id  # the only evidence before it ends: its size (see above)
                if any(r.custom_id.startswith(f"{token}-") for r in await self.results(batch_id)):
                    return batch_id
        return None

    async def state(self, batch_id: str) -> BatchState:
        batch, counts = await self._batch(batch_id)
        status = str(batch.get("processing_status"))
        total = _total(counts)
        ended: BatchEnd | None = None
        if status == "ended":
            ended = (
                "expired"
                if counts.get("expired")
                else "cancelled"
                if counts.get("canceled")
                else "completed"
            )
        return BatchState(batch_id, ended, total - counts.get("processing", 0), total, status)

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
        return self._failure(custom_id, reason)


def _total(counts: dict[str, int]) -> int:
    keys = ("processing", "succeeded", "errored", "canceled", "expired")
    return sum(counts.get(k, 0) for k in keys)
