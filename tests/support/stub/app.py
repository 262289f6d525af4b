"""The stub's ASGI application: a bare async callable, no framework.

Routes:
    POST /v1/chat/completions   an OpenAI-shaped completion, or an injected fault
    POST /v1/messages           an Anthropic Messages reply (`support.stub.messages`)
    GET  /v1/models             the one model the stub serves (a readiness probe)
    GET  /stats                 counters, as JSON (see `StubStats`); ?brief=1: totals only
    POST /reset                 clears the counters

Every decision is a pure function of the seed and the request (see `fault_for` and
`StubApp._reply_text`), so the same requests in the same order meet the same faults. Counters
are updated under a lock: the server runs on its own thread and `stats()` is read from others.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import json
import socket
import struct
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, cast

from proctor.replay.server import BadRequest, estimate_tokens, parse_chat_request
from support.stub.answers import off_by_one, solve
from support.stub.config import REPLY_FAULTS, AnyFault, FaultKind, ReplyFault, StubConfig
from support.stub.hostile import send_reply_fault

__all__ = [
    "NO_CREDENTIAL",
    "StubApp",
    "StubStats",
    "body_key",
    "credential_key",
    "fault_for",
    "prompt_key",
    "retry_after_for",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _json_codec() -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """orjson when it is installed (several times faster), else the standard library."""
    try:
        orjson = importlib.import_module("orjson")
    except ImportError:

        def dumps(obj: Any) -> bytes:
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()

        return dumps, json.loads
    return (
        cast(Callable[[Any], bytes], orjson.dumps),
        cast(Callable[[bytes], Any], orjson.loads),
    )


_dumps, _loads = _json_codec()

_JSON = (b"content-type", b"application/json")
_NOT_JSON_BODY = b"<html><body><h1>502 Bad Gateway</h1>upstream sent garbage</body></html>"
_STEP = "Step 1: I work it out by hand, digit by digit.\nFinal answer: "
_NO_QUESTION = "I could not find an arithmetic question in the prompt."
_NO_SCRIPT = "The stub has no scripted reply for this prompt."
_HANG_POLL_S = 0.05
_DISCONNECT_WAIT_S = 5.0


def body_key(body: bytes) -> str:
    """The key of a request body in `StubStats.by_body`."""
    return hashlib.sha256(body).hexdigest()[:16]


def prompt_key(prompt: str) -> str:
    """The key of a last user message in `StubStats.by_prompt`."""
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


NO_CREDENTIAL = "none"
"""The `StubStats.credentials` key of requests that carried no key."""


def credential_key(key: str) -> str:
    """The key of a credential (the key itself, without "Bearer ") in `StubStats.credentials`:
    a fingerprint, so the stub's /stats never shows a key it was sent."""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _credential(scope: Scope) -> str | None:
    """The key a request carries: ``Authorization: Bearer KEY`` or ``x-api-key: KEY``."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return bytes(value[7:]).decode("latin-1")
        if name == b"x-api-key":
            return bytes(value).decode("latin-1")
    return None


def _draw(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def _unit(digest: bytes, at: int = 0) -> float:
    """A number in [0, 1) from 8 bytes of `digest`."""
    return int.from_bytes(digest[at : at + 8], "big") / 2**64


def fault_for(
    config: StubConfig, body_hash: str, attempt: int, faults_so_far: int = 0
) -> AnyFault | None:
    """The fault for the `attempt`-th (0-based) request with this body, or None. Each attempt
    draws afresh, so with fault_rate < 1 a retried body eventually gets through."""
    if config.fault_rate <= 0.0 or not config.faults:
        return None
    if config.max_faults_per_body is not None and faults_so_far >= config.max_faults_per_body:
        return None
    digest = _draw(config.seed, "fault", body_hash, attempt)
    if _unit(digest) >= config.fault_rate:
        return None
    return config.faults[int.from_bytes(digest[8:16], "big") % len(config.faults)]


def retry_after_for(config: StubConfig, body_hash: str, attempt: int) -> str:
    """The Retry-After header ("0" or "1") of a "429" fault on that attempt."""
    return "1" if _draw(config.seed, "retry-after", body_hash, attempt)[0] & 1 else "0"


@dataclass(frozen=True)
class StubStats:
    """What the stub has seen since it started or was last reset.

    requests: chat-completion requests received; completions: those answered with a
    completion; faults: injected faults by kind; by_body / by_prompt: requests per request-body
    hash (`body_key`) and per last-user-message hash (`prompt_key`); max_in_flight: the most
    requests handled at once; credentials: requests per key received (`credential_key`, or
    `NO_CREDENTIAL`); by_temperature: requests per "temperature" the body asked (its repr, or
    "none"); arrivals: when each chat-completion request arrived (`time.monotonic()`,
    in the order they came), so a test can see how a client spaced its requests."""

    requests: int = 0
    completions: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    by_body: dict[str, int] = field(default_factory=dict)
    by_prompt: dict[str, int] = field(default_factory=dict)
    max_in_flight: int = 0
    credentials: dict[str, int] = field(default_factory=dict)
    arrivals: tuple[float, ...] = ()
    by_temperature: dict[str, int] = field(default_factory=dict)

    def as_dict(self, *, brief: bool = False) -> dict[str, Any]:
        """The JSON of `GET /stats`; `brief` (`GET /stats?brief=1`) leaves out the per-body and
        per-prompt counts, which grow with every distinct request."""
        data: dict[str, Any] = {
            "requests": self.requests,
            "completions": self.completions,
            "faults": dict(self.faults),
            "max_in_flight": self.max_in_flight,
            "credentials": dict(self.credentials),
            "by_temperature": dict(self.by_temperature),
        }
        if not brief:
            data["by_body"] = dict(self.by_body)
            data["by_prompt"] = dict(self.by_prompt)
            data["arrivals"] = list(self.arrivals)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StubStats:
        """Read `GET /stats` (for a stub running in another process)."""
        return cls(
            requests=int(data["requests"]),
            completions=int(data["completions"]),
            faults={str(k): int(v) for k, v in data["faults"].items()},
            by_body={str(k): int(v) for k, v in data.get("by_body", {}).items()},
            by_prompt={str(k): int(v) for k, v in data.get("by_prompt", {}).items()},
            max_in_flight=int(data["max_in_flight"]),
            credentials={str(k): int(v) for k, v in data.get("credentials", {}).items()},
            arrivals=tuple(float(t) for t in data.get("arrivals", ())),
            by_temperature={str(k): int(v) for k, v in data.get("by_temperature", {}).items()},
        )


class StubApp:
    """The ASGI callable. `close()` (thread-safe) ends hanging requests so shutdown is quick."""

    def __init__(self, config: StubConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._closing = False
        self._reset_counters()

    def _reset_counters(self) -> None:
        self._requests = 0
        self._completions = 0
        self._faults: dict[str, int] = {}
        self._by_body: dict[str, int] = {}
        self._faults_by_body: dict[str, int] = {}
        self._by_prompt: dict[str, int] = {}
        self._in_flight = 0
        self._max_in_flight = 0
        self._ids = 0
        self._credentials: dict[str, int] = {}
        self._arrivals: list[float] = []
        self._by_temperature: dict[str, int] = {}

    def stats(self) -> StubStats:
        with self._lock:
            return StubStats(
                requests=self._requests,
                completions=self._completions,
                faults=dict(self._faults),
                by_body=dict(self._by_body),
                by_prompt=dict(self._by_prompt),
                max_in_flight=self._max_in_flight,
                credentials=dict(self._credentials),
                arrivals=tuple(self._arrivals),
                by_temperature=dict(self._by_temperature),
            )

    def reset(self) -> None:
        with self._lock:
            in_flight = self._in_flight
            self._reset_counters()
            self._in_flight = in_flight

    def close(self) -> None:
        self._closing = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await _lifespan(receive, send)
            return
        if kind != "http":
            return
        path: str = scope["path"]
        method: str = scope["method"]
        if path == "/v1/chat/completions":
            if method != "POST":
                await _send_error(send, 405, "use POST")
                return
            await self._chat(scope, receive, send)
        elif path == "/v1/messages" and method == "POST":
            from support.stub.messages import messages_route

            await messages_route(self, scope, receive, send)
        elif path == "/stats" and method == "GET":
            brief = b"brief=1" in scope.get("query_string", b"")
            await _send_json(send, 200, self.stats().as_dict(brief=brief))
        elif path == "/reset" and method == "POST":
            await _read_body(receive)
            self.reset()
            await _send_json(send, 200, {"ok": True})
        elif path == "/v1/models" and method == "GET":
            model = {"id": self.config.model, "object": "model", "owned_by": "proctor-stub"}
            await _send_json(send, 200, {"object": "list", "data": [model]})
        else:
            await _send_error(send, 404, f"no route {method} {path}")

    async def _chat(self, scope: Scope, receive: Receive, send: Send) -> None:
        arrived = time.monotonic()
        body = await _read_body(receive)
        if body is None:
            return
        key = body_key(body)
        credential = _credential(scope)
        seen = NO_CREDENTIAL if credential is None else credential_key(credential)
        with self._lock:
            self._credentials[seen] = self._credentials.get(seen, 0) + 1
            self._arrivals.append(arrived)
            self._requests += 1
            attempt = self._by_body.get(key, 0)
            self._by_body[key] = attempt + 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            faults_so_far = self._faults_by_body.get(key, 0)
        try:
            if self.config.api_key is not None and credential != self.config.api_key:
                await _send_error(send, 401, "Incorrect API key provided (stub)")
                return
            try:
                request, prompt = parse_chat_request(body, _loads)
            except BadRequest as e:
                await _send_error(send, 400, str(e))
                return
            if self.config.refuse_tools and request.get("tools"):
                await _send_error(send, 400, "this model does not support tools (stub)")
                return
            with self._lock:
                pkey = prompt_key(prompt)
                self._by_prompt[pkey] = self._by_prompt.get(pkey, 0) + 1
                t = request.get("temperature")
                tkey = "none" if t is None else repr(t)
                self._by_temperature[tkey] = self._by_temperature.get(tkey, 0) + 1
            if self.config.latency_s > 0:
                await asyncio.sleep(self.config.latency_s)
            fault = fault_for(self.config, key, attempt, faults_so_far)
            if fault is not None:
                with self._lock:
                    self._faults[fault] = self._faults.get(fault, 0) + 1
                    self._faults_by_body[key] = self._faults_by_body.get(key, 0) + 1
                if fault in REPLY_FAULTS:
                    await self._hostile(fault, scope, prompt, receive, send)
                    return
                transport = cast(FaultKind, fault)
                if await self._inject(transport, request, prompt, key, attempt, receive, send):
                    return
            await self._complete(request, prompt, send)
        finally:
            with self._lock:
                self._in_flight -= 1

    async def _complete(
        self, request: dict[str, Any], prompt: str, send: Send, *, truncate: bool = False
    ) -> None:
        text = self._reply_text(prompt)
        finish = "stop"
        max_tokens = request.get("max_tokens")
        completion_tokens = estimate_tokens(text)
        if isinstance(max_tokens, int) and 0 < max_tokens < completion_tokens:
            text, finish, completion_tokens = text[: max_tokens * 4], "length", max_tokens
        with self._lock:
            self._ids += 1
            n = self._ids
            # Counted before it is sent, so a client that has its reply sees it counted.
            self._completions += 0 if truncate else 1
        completion_id = f"chatcmpl-stub-{n}"
        usage = {
            "prompt_tokens": estimate_tokens(prompt),
            "completion_tokens": completion_tokens,
            "total_tokens": estimate_tokens(prompt) + completion_tokens,
        }
        if request.get("stream") is True:
            await _send_stream(
                send, completion_id, self.config.model, text, finish, usage, cut=truncate
            )
        else:
            document = {
                "id": completion_id,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.config.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                    }
                ],
                "usage": usage,
            }
            payload = _dumps(document)
            if truncate:
                await _send_cut(send, payload)
                return
            await _send_bytes(send, 200, payload, [_JSON])

    def reply_text(self, prompt: str) -> str:
        """What the stub answers a prompt whose last user message is `prompt` (batches too)."""
        return self._reply_text(prompt)

    async def _hostile(
        self, fault: ReplyFault, scope: Scope, prompt: str, receive: Receive, send: Send
    ) -> None:
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        left = asyncio.ensure_future(_until_disconnect(receive))
        try:
            await send_reply_fault(
                fault,
                self.config,
                self._reply_text(prompt),
                authorization,
                send,
                lambda: left.done() or self._closing,
            )
        finally:
            left.cancel()

    def count_request(self, credential: str | None) -> None:
        """Count one request of another API (/v1/messages) and the credential it carried."""
        seen = NO_CREDENTIAL if credential is None else credential_key(credential)
        with self._lock:
            self._credentials[seen] = self._credentials.get(seen, 0) + 1
            self._arrivals.append(time.monotonic())
            self._requests += 1

    def count_completion(self) -> int:
        """Count one completion of another API; its number."""
        with self._lock:
            self._ids += 1
            self._completions += 1
            return self._ids

    def _reply_text(self, prompt: str) -> str:
        mode = self.config.answer_mode
        if mode == "echo":
            return prompt
        if mode.startswith("const:"):
            return mode[len("const:") :]
        if mode == "script":
            found = [(len(k), r) for k, r in self.config.replies if k in prompt]
            return max(found)[1] if found else _NO_SCRIPT
        answer = solve(prompt)
        if answer is None:
            return _NO_QUESTION
        wrong = mode == "wrong" or (
            self.config.correct_rate < 1.0
            and _unit(_draw(self.config.seed, "answer", prompt)) >= self.config.correct_rate
        )
        return _STEP + (off_by_one(answer) if wrong else answer)

    async def _inject(
        self,
        fault: FaultKind,
        request: dict[str, Any],
        prompt: str,
        key: str,
        attempt: int,
        receive: Receive,
        send: Send,
    ) -> bool:
        """Act out `fault`; False when the request should still get its completion (a hang
        whose client waited it out)."""
        if fault == "429":
            retry_after = retry_after_for(self.config, key, attempt).encode()
            await _send_error(send, 429, "rate limited (stub)", [(b"retry-after", retry_after)])
        elif fault == "429_no_retry_after":
            await _send_error(send, 429, "rate limited (stub)")
        elif fault in ("500", "502", "503"):
            await _send_error(send, int(fault), f"server error {fault} (stub)")
        elif fault == "not_json":
            await _send_bytes(send, 200, _NOT_JSON_BODY, [(b"content-type", b"text/html")])
        elif fault == "no_choices":
            await _send_json(
                send,
                200,
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "model": self.config.model,
                    "choices": [],
                },
            )
        elif fault == "reset":
            await _reset(send, receive)
        elif fault == "truncated_stream":
            await self._complete(request, prompt, send, truncate=True)
            await _close(send, receive)
        elif fault == "hang":
            outcome = await self._hang(receive)
            if outcome == "closing":
                await _reset(send, receive)
            return outcome != "waited"
        return True

    async def _hang(self, receive: Receive) -> str:
        """Wait `hang_s` or until the client leaves or the server closes; say which."""
        gone = asyncio.ensure_future(_until_disconnect(receive))
        deadline = time.monotonic() + self.config.hang_s
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return "waited"
                done, _ = await asyncio.wait({gone}, timeout=min(_HANG_POLL_S, left))
                if done:
                    return "disconnected"
                if self._closing:
                    return "closing"
        finally:
            gone.cancel()


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client left first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _send_bytes(
    send: Send, status: int, payload: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})


async def _send_json(send: Send, status: int, document: object) -> None:
    await _send_bytes(send, status, _dumps(document), [_JSON])


async def _send_error(
    send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    document = {"error": {"message": message, "type": "stub_error", "code": status}}
    await _send_bytes(send, status, _dumps(document), [_JSON, *(headers or [])])


async def _send_cut(send: Send, payload: bytes) -> None:
    """Headers promising all of `payload`, then only its first half (the caller closes)."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [_JSON, (b"content-length", str(len(payload)).encode())],
        }
    )
    await send(
        {"type": "http.response.body", "body": payload[: len(payload) // 2], "more_body": True}
    )


async def _send_stream(
    send: Send,
    completion_id: str,
    model: str,
    text: str,
    finish: str,
    usage: dict[str, int],
    *,
    cut: bool,
) -> None:
    """Server-sent events as OpenAI streams them; with `cut`, only the first half of them and
    never the final `[DONE]` (the caller closes the connection)."""
    created = int(time.time())

    def event(delta: dict[str, str], finish_reason: str | None) -> bytes:
        chunk = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return b"data: " + _dumps(chunk) + b"\n\n"

    pieces = [text[i : i + 16] for i in range(0, len(text), 16)] or [""]
    events = [event({"role": "assistant"}, None)]
    events += [event({"content": p}, None) for p in pieces]
    events.append(event({}, finish))
    tail = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [],
        "usage": usage,
    }
    events.append(b"data: " + _dumps(tail) + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    if cut:
        events = events[: max(1, len(events) // 2)]
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")],
        }
    )
    for e in events:
        await send({"type": "http.response.body", "body": e, "more_body": True})
    if not cut:
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _transport_of(send: Send) -> asyncio.Transport | None:
    """The connection under a uvicorn request: its `send` is a bound method of the request
    cycle, which holds the transport. ASGI gives no portable way to drop a connection."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    # uvloop's transports are not asyncio.Transport subclasses: check for what is used.
    if callable(getattr(transport, "abort", None)) and callable(
        getattr(transport, "get_extra_info", None)
    ):
        return cast(asyncio.Transport, transport)
    return None


async def _reset(send: Send, receive: Receive) -> None:
    """Drop the connection with a TCP RST (SO_LINGER 0, then abort) and no response."""
    transport = _transport_of(send)
    if transport is None:
        raise RuntimeError("the reset fault needs uvicorn (no transport under this request)")
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    await _wait_disconnect(receive)


async def _close(send: Send, receive: Receive) -> None:
    """Close the connection after what was sent is flushed (a FIN mid-response)."""
    transport = _transport_of(send)
    if transport is None:
        raise RuntimeError("the truncated_stream fault needs uvicorn (no transport)")
    transport.close()
    await _wait_disconnect(receive)


async def _wait_disconnect(receive: Receive) -> None:
    """Wait until uvicorn has seen the connection go, so it does not answer a 500 for us."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(_until_disconnect(receive), _DISCONNECT_WAIT_S)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
