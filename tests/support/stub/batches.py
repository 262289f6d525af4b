"""The stub's batch APIs: OpenAI's Batch API and Anthropic's Message Batches, on 127.0.0.1.

Routes (beside the stub's own, see `support.stub.app`):

    POST /v1/files                          upload a JSONL of requests (multipart, purpose=batch)
    GET  /v1/files/{id}/content             a file's content (a batch's output or error file)
    POST /v1/batches                        create a batch from an uploaded file
    GET  /v1/batches[?limit=&after=]        list batches, newest first
    GET  /v1/batches/{id}                   a batch (validating → in_progress → completed)
    POST /v1/batches/{id}/cancel            cancel it (what was not done is cancelled)
    POST /v1/messages/batches               create an Anthropic batch
    GET  /v1/messages/batches[?limit=&after_id=]
    GET  /v1/messages/batches/{id}          in_progress → ended
    POST /v1/messages/batches/{id}/cancel
    GET  /v1/messages/batches/{id}/results  JSONL: succeeded / errored / canceled / expired

Each request is answered as the stub answers a live one (`StubApp.reply_text`). A batch ends
`BatchFaults.end_after_s` seconds after it was created; faults: `error_rate` of the requests
errored (decided by seed, prompt and how often that prompt was submitted before, so a retry may
succeed), and `expire` (at its end only the first half of the batch is done, the rest expired).
`BatchStubStats.by_prompt` counts how many times each prompt was submitted in any batch: the
tests' proof that nothing was submitted twice."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from support.stub.app import (
    Receive,
    Scope,
    Send,
    StubApp,
    _draw,
    _read_body,
    _send_bytes,
    _unit,
    prompt_key,
)
from support.stub.app import _send_error as send_error
from support.stub.app import _send_json as send_json
from support.stub.config import StubConfig


@dataclass(frozen=True)
class BatchFaults:
    end_after_s: float = 0.5
    error_rate: float = 0.0
    expire: bool = False


@dataclass
class _Batch:
    id: str
    kind: str  # "openai" or "anthropic"
    created: float
    requests: list[tuple[str, dict[str, Any]]]
    """(custom id, the request's body)"""
    metadata: dict[str, Any]
    cancelled_at: float | None = None
    results: list[dict[str, Any]] | None = None
    output_file: str = ""
    error_file: str = ""


@dataclass(frozen=True)
class BatchStubStats:
    files: int
    batches: int
    requests: int
    by_prompt: dict[str, int] = field(default_factory=dict)
    state_reads: int = 0


class BatchStubApp(StubApp):
    """The stub, serving both batch APIs too."""

    def __init__(self, config: StubConfig, faults: BatchFaults | None = None) -> None:
        super().__init__(config)
        self.faults = faults or BatchFaults()
        self._batch_lock = threading.Lock()
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}
        self._submitted: dict[str, int] = {}
        self._state_reads = 0
        self._n = 0

    def batch_stats(self) -> BatchStubStats:
        with self._batch_lock:
            return BatchStubStats(
                files=len(self._files),
                batches=len(self._batches),
                requests=sum(len(b.requests) for b in self._batches.values()),
                by_prompt=dict(self._submitted),
                state_reads=self._state_reads,
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        query = parse_qs(scope.get("query_string", b"").decode())
        parts = [p for p in path.split("/") if p]
        if parts[:2] == ["v1", "files"] or parts[:2] == ["v1", "batches"]:
            await self._openai(method, parts[2:], query, receive, send)
        elif parts[:3] == ["v1", "messages", "batches"]:
            await self._anthropic(method, parts[3:], query, receive, send)
        elif path == "/batch-stats" and method == "GET":
            stats = self.batch_stats()
            await send_json(send, 200, stats.__dict__)
        else:
            await super().__call__(scope, receive, send)

    # -- OpenAI ----------------------------------------------------------------------------------

    async def _openai(
        self, method: str, rest: list[str], query: dict[str, list[str]], receive: Receive,
        send: Send,
    ) -> None:  # fmt: skip
        body = await _read_body(receive) if method == "POST" else b""
        if body is None:
            return
        if method == "POST" and not rest and self._is_files(body):
            await self._upload(body, send)
        elif method == "GET" and len(rest) == 2 and rest[1] == "content":
            content = self._files.get(rest[0])
            if content is None:
                await send_error(send, 404, f"no file {rest[0]}")
            else:
                await _send_bytes(send, 200, content, [(b"content-type", b"application/jsonl")])
        elif method == "POST" and not rest:
            await self._create_openai(body, send)
        elif method == "GET" and not rest:
            await send_json(send, 200, self._list("openai", query, "after"))
        elif method == "GET" and len(rest) == 1:
            await self._show(rest[0], send)
        elif method == "POST" and len(rest) == 2 and rest[1] == "cancel":
            await self._cancel(rest[0], send)
        else:
            await send_error(send, 404, f"no route {method} /{'/'.join(rest)}")

    def _is_files(self, body: bytes) -> bool:
        return body.startswith(b"--")

    async def _upload(self, body: bytes, send: Send) -> None:
        boundary = body.split(b"\r\n", 1)[0]
        content = b""
        for part in body.split(boundary):
            head, _, data = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                content = data.rsplit(b"\r\n", 1)[0]
        with self._batch_lock:
            self._n += 1
            file_id = f"file-stub-{self._n}"
            self._files[file_id] = content
        await send_json(
            send,
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "purpose": "batch",
                "created_at": int(time.time()),
                "filename": "batch.jsonl",
            },
        )

    async def _create_openai(self, body: bytes, send: Send) -> None:
        try:
            request = json.loads(body)
            content = self._files[request["input_file_id"]]
            lines = [json.loads(line) for line in content.splitlines() if line.strip()]
            reqs = [(str(line["custom_id"]), dict(line["body"])) for line in lines]
        except (ValueError, KeyError, TypeError) as e:
            await send_error(send, 400, f"bad batch: {e}")
            return
        meta = request.get("metadata") if isinstance(request.get("metadata"), dict) else {}
        batch = self._new("openai", reqs, meta)
        await send_json(send, 200, self._openai_view(batch))

    # -- Anthropic -------------------------------------------------------------------------------

    async def _anthropic(
        self, method: str, rest: list[str], query: dict[str, list[str]], receive: Receive,
        send: Send,
    ) -> None:  # fmt: skip
        body = await _read_body(receive) if method == "POST" else b""
        if body is None:
            return
        if method == "POST" and not rest:
            try:
                reqs = [
                    (str(r["custom_id"]), dict(r["params"])) for r in json.loads(body)["requests"]
                ]
            except (ValueError, KeyError, TypeError) as e:
                await send_error(send, 400, f"bad batch: {e}")
                return
            await send_json(send, 200, self._anthropic_view(self._new("anthropic", reqs, {})))
        elif method == "GET" and not rest:
            await send_json(send, 200, self._list("anthropic", query, "after_id"))
        elif method == "GET" and len(rest) == 1:
            await self._show(rest[0], send)
        elif method == "GET" and len(rest) == 2 and rest[1] == "results":
            batch = self._ended(rest[0])
            if batch is None or batch.results is None:
                await send_error(send, 404, f"no ended batch {rest[0]}")
                return
            text = b"".join(json.dumps(r).encode() + b"\n" for r in batch.results)
            await _send_bytes(send, 200, text, [(b"content-type", b"application/x-jsonl")])
        elif method == "POST" and len(rest) == 2 and rest[1] == "cancel":
            await self._cancel(rest[0], send)
        else:
            await send_error(send, 404, f"no route {method} /{'/'.join(rest)}")

    # -- both ------------------------------------------------------------------------------------

    def _new(
        self, kind: str, reqs: list[tuple[str, dict[str, Any]]], meta: dict[str, Any]
    ) -> _Batch:
        with self._batch_lock:
            self._n += 1
            prefix = "batch_stub" if kind == "openai" else "msgbatch_stub"
            batch = _Batch(f"{prefix}{self._n:06d}", kind, time.monotonic(), reqs, meta)
            self._batches[batch.id] = batch
            for _, body in reqs:
                key = prompt_key(_last_user(body))
                self._submitted[key] = self._submitted.get(key, 0) + 1
        return batch

    def _list(self, kind: str, query: dict[str, list[str]], after_key: str) -> dict[str, Any]:
        limit = int((query.get("limit") or ["20"])[0])
        after = (query.get(after_key) or [""])[0]
        with self._batch_lock:
            mine = [b for b in reversed(self._batches.values()) if b.kind == kind]
        if after:
            ids = [b.id for b in mine]
            mine = mine[ids.index(after) + 1 :] if after in ids else []
        page = mine[:limit]
        view = self._openai_view if kind == "openai" else self._anthropic_view
        data = [view(self._settle(b)) for b in page]
        return {
            "object": "list",
            "data": data,
            "has_more": len(mine) > limit,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
        }

    async def _show(self, batch_id: str, send: Send) -> None:
        batch = self._batches.get(batch_id)
        if batch is None:
            await send_error(send, 404, f"no batch {batch_id}")
            return
        with self._batch_lock:
            self._state_reads += 1
        self._settle(batch)
        view = self._openai_view if batch.kind == "openai" else self._anthropic_view
        await send_json(send, 200, view(batch))

    async def _cancel(self, batch_id: str, send: Send) -> None:
        batch = self._batches.get(batch_id)
        if batch is None:
            await send_error(send, 404, f"no batch {batch_id}")
            return
        if batch.results is None:
            batch.cancelled_at = time.monotonic()
        self._settle(batch)
        view = self._openai_view if batch.kind == "openai" else self._anthropic_view
        await send_json(send, 200, view(batch))

    def _ended(self, batch_id: str) -> _Batch | None:
        batch = self._batches.get(batch_id)
        return None if batch is None else self._settle(batch)

    def _settle(self, batch: _Batch) -> _Batch:
        """Work the batch out once its time has come (or it was cancelled)."""
        with self._batch_lock:
            if batch.results is not None:
                return batch
            due = time.monotonic() - batch.created >= self.faults.end_after_s
            if not due and batch.cancelled_at is None:
                return batch
            results = []
            keep = len(batch.requests) // 2 if self.faults.expire else len(batch.requests)
            for n, (custom_id, body) in enumerate(batch.requests):
                if batch.cancelled_at is not None and not due:
                    results.append(self._missed(batch.kind, custom_id, "canceled"))
                elif n >= keep:
                    results.append(self._missed(batch.kind, custom_id, "expired"))
                else:
                    results.append(self._answer(batch.kind, custom_id, body))
            batch.results = results
            if batch.kind == "openai":
                ok = [r for r in results if r.get("error") is None]
                bad = [r for r in results if r.get("error") is not None]
                for name, rows in (("output_file", ok), ("error_file", bad)):
                    if rows:
                        self._n += 1
                        file_id = f"file-stub-{self._n}"
                        self._files[file_id] = b"".join(
                            json.dumps(r).encode() + b"\n" for r in rows
                        )
                        setattr(batch, name, file_id)
        return batch

    def _answer(self, kind: str, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        prompt = _last_user(body)
        key = prompt_key(prompt)
        seen = self._submitted.get(key, 1)
        if (
            self.faults.error_rate
            and _unit(_draw(self.config.seed, "batch-error", prompt, seen)) < self.faults.error_rate
        ):
            if kind == "openai":
                return {
                    "id": f"batch_req_{custom_id}",
                    "custom_id": custom_id,
                    "response": {
                        "status_code": 500,
                        "request_id": "stub",
                        "body": {
                            "error": {
                                "message": "server error (stub batch)",
                                "type": "server_error",
                            }
                        },
                    },
                    "error": None,
                }
            return {
                "custom_id": custom_id,
                "result": {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "api_error", "message": "server error (stub batch)"},
                    },
                },
            }
        text = self.reply_text(prompt)
        max_tokens = body.get("max_tokens")
        tokens = max(1, len(text) // 4)
        finish = "stop"
        if isinstance(max_tokens, int) and 0 < max_tokens < tokens:
            text, finish, tokens = text[: max_tokens * 4], "length", max_tokens
        prompt_tokens = max(1, len(prompt) // 4)
        if kind == "openai":
            return {
                "id": f"batch_req_{custom_id}",
                "custom_id": custom_id,
                "error": None,
                "response": {
                    "status_code": 200,
                    "request_id": "stub",
                    "body": {
                        "id": f"chatcmpl-{custom_id}",
                        "object": "chat.completion",
                        "model": self.config.model,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": finish,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt_tokens,
                            "completion_tokens": tokens,
                            "total_tokens": prompt_tokens + tokens,
                        },
                    },
                },
            }
        return {
            "custom_id": custom_id,
            "result": {
                "type": "succeeded",
                "message": {
                    "id": f"msg_{custom_id}",
                    "type": "message",
                    "role": "assistant",
                    "model": self.config.model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn" if finish == "stop" else "max_tokens",
                    "usage": {"input_tokens": prompt_tokens, "output_tokens": tokens},
                },
            },
        }

    def _missed(self, kind: str, custom_id: str, why: str) -> dict[str, Any]:
        if kind == "openai":
            code = "batch_expired" if why == "expired" else "batch_cancelled"
            return {
                "id": f"batch_req_{custom_id}",
                "custom_id": custom_id,
                "response": None,
                "error": {"code": code, "message": f"This request was {why} (stub)."},
            }
        return {"custom_id": custom_id, "result": {"type": why}}

    def _openai_view(self, b: _Batch) -> dict[str, Any]:
        total = len(b.requests)
        if b.results is None:
            status = "cancelling" if b.cancelled_at else "in_progress"
            done = failed = 0
        else:
            failed = sum(
                1
                for r in b.results
                if r.get("error") is not None or (r.get("response") or {}).get("status_code") != 200
            )
            done = total - failed
            expired = any((r.get("error") or {}).get("code") == "batch_expired" for r in b.results)
            cancelled = any(
                (r.get("error") or {}).get("code") == "batch_cancelled" for r in b.results
            )
            status = "expired" if expired else "cancelled" if cancelled else "completed"
        return {
            "id": b.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "status": status,
            "metadata": b.metadata,
            "completion_window": "24h",
            "output_file_id": b.output_file or None,
            "error_file_id": b.error_file or None,
            "request_counts": {"total": total, "completed": done, "failed": failed},
        }

    def _anthropic_view(self, b: _Batch) -> dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if b.results is None:
            counts["processing"] = len(b.requests)
            status = "canceling" if b.cancelled_at else "in_progress"
        else:
            for r in b.results:
                counts[str(r["result"]["type"])] += 1
            status = "ended"
        return {
            "id": b.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "results_url": f"/v1/messages/batches/{b.id}/results"
            if b.results is not None
            else None,
        }


def _last_user(body: dict[str, Any]) -> str:
    messages = body.get("messages")
    if isinstance(messages, list):
        for m in reversed(messages):
            if isinstance(m, dict) and m.get("role") == "user":
                content = m.get("content")
                return content if isinstance(content, str) else json.dumps(content)
    return ""
