"""OpenAI's Batch API (and any endpoint that serves it): the requests as a JSONL file uploaded to
`/files` (purpose "batch"), a batch created on `/batches` for `/v1/chat/completions`, its state
read from `/batches/{id}`, its results from the output and error files' content.

Translation and error classification only (see `proctor.providers.batch`)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, get_args

from proctor.providers.batch import (
    BatchAdapter,
    BatchEnd,
    BatchRequest,
    BatchResult,
    BatchState,
)
from proctor.providers.http import encode_body, json_object

TOKEN_KEY = "proctor_token"
_ENDED: dict[str, BatchEnd] = {end: end for end in get_args(BatchEnd)}
"""OpenAI names a batch's end as we do."""


class OpenAIBatches(BatchAdapter):
    BATCHES = "batches"
    TEXT_SUFFIX = "/content"

    async def submit(self, requests: Sequence[BatchRequest], token: str) -> str:
        lines = [
            encode_body(
                {
                    "custom_id": r.custom_id,
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": self._body_of(r.prompt, r.params),
                }
            )
            for r in requests
        ]
        boundary = "proctor-" + secrets.token_hex(12)
        form = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename='
                f'"proctor-{token}.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n'
            ).encode()
            + b"\n".join(lines)
            + f"\r\n--{boundary}--\r\n".encode()
        )
        file_id = await self._create("files", form, f"multipart/form-data; boundary={boundary}")
        return await self._create(
            "batches",
            encode_body(
                {
                    "input_file_id": file_id,
                    "endpoint": "/v1/chat/completions",
                    "completion_window": "24h",
                    "metadata": {TOKEN_KEY: token},
                }
            ),
        )

    async def find(
        self, token: str, size: int, taken: frozenset[str] = frozenset()
    ) -> str | None:
        del taken  # the token is in each batch's metadata: no batch is mistaken for another
        async for data in self._pages("after"):
            for batch in data:
                meta = batch.get("metadata") if isinstance(batch, dict) else None
                if isinstance(meta, dict) and meta.get(TOKEN_KEY) == token:
                    return str(batch.get("id"))
        return None

    async def state(self, batch_id: str) -> BatchState:
        batch, counts = await self._batch(batch_id)
        status = str(batch.get("status"))
        done = counts.get("completed", 0) + counts.get("failed", 0)
        return BatchState(batch_id, _ENDED.get(status), done, counts.get("total", 0), status)

    async def results(self, batch_id: str) -> list[BatchResult]:
        batch = await self._call("GET", f"batches/{batch_id}")
        out: list[BatchResult] = []
        for key in ("output_file_id", "error_file_id"):
            file_id = batch.get(key) if isinstance(batch, dict) else None
            if not isinstance(file_id, str) or not file_id:
                continue
            text = await self._call("GET", f"files/{file_id}/content")
            for line in str(text).splitlines():
                if line.strip():
                    out.append(self._result(line))
        return out

    def _read_result(self, custom_id: str, data: dict[str, Any]) -> BatchResult:
        response = json_object(data.get("response"))
        error = data.get("error")
        status = response.get("status_code")
        body = response.get("body")
        if status == 200 and not error:
            return self._answered(custom_id, body)
        if isinstance(error, dict):
            reason = f"{error.get('code') or 'error'}: {error.get('message') or ''}".strip(": ")
        elif isinstance(body, dict) and isinstance(body.get("error"), dict):
            reason = f"HTTP {status}: {body['error'].get('message') or ''}"
        else:
            reason = f"HTTP {status}: no result"
        return self._failure(custom_id, reason)
