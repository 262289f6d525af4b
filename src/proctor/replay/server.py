"""The HTTP side: `/v1/chat/completions` answered from a replies table, on 127.0.0.1.

Routes:
    POST /v1/chat/completions   an OpenAI-shaped completion (streamed when ``stream`` is true)
    GET  /v1/models             the one model served (a readiness probe)

A completion is shaped as `python -m proctor.stub` shaped it: usage counts of a token per four
characters, and a reply longer than ``max_tokens`` tokens cut to ``max_tokens * 4`` characters
with finish_reason ``length``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

from proctor.replay.replies import Replies, reply_for

__all__ = ["ReplayServer", "serve_replies"]

_MAX_BODY = 64 * 1024 * 1024


class BadRequest(Exception):
    """A request no OpenAI-compatible server would answer; its message says why (HTTP 400)."""


class ReplayServer(ThreadingHTTPServer):
    """A threading HTTP server that answers from `replies` as `model`."""

    daemon_threads = True  # a client's idle keep-alive connection never holds up shutdown

    def __init__(self, replies: Replies, model: str, port: int = 0) -> None:
        self.replies = replies
        self.model = model
        self._ids = count(1)
        self._ids_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that left mid-reply is no error of ours: no traceback on stderr."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def next_id(self) -> int:
        with self._ids_lock:
            return next(self._ids)


@contextmanager
def serve_replies(replies: Replies, model: str, port: int = 0) -> Iterator[ReplayServer]:
    """A `ReplayServer` serving on a thread of its own, shut down on exit."""
    server = ReplayServer(replies, model, port)
    thread = threading.Thread(target=server.serve_forever, name="proctor-replay", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients pool their connections
    server: ReplayServer

    def log_message(self, format: str, *args: Any) -> None:
        """No per-request logging: stdout holds the URL only, stderr stays quiet."""

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/v1/models":
            model = {"id": self.server.model, "object": "model", "owned_by": "proctor-replay"}
            self._send_json(200, {"object": "list", "data": [model]})
        elif self.path.split("?")[0] == "/v1/chat/completions":
            self._send_error(405, "use POST")
        else:
            self._send_error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        try:
            body = self._read_body()
        except BadRequest as e:
            self.close_connection = True
            self._send_error(400, str(e))
            return
        if self.path.split("?")[0] != "/v1/chat/completions":
            self._send_error(404, f"no route POST {self.path}")
            return
        try:
            request, prompt = parse_chat_request(body)
        except BadRequest as e:
            self._send_error(400, str(e))
            return
        self._complete(request, prompt)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            raise BadRequest("chunked request bodies are not supported: send Content-Length")
        try:
            length = int(self.headers.get("content-length", "0"))
        except ValueError:
            raise BadRequest("bad Content-Length") from None
        if not 0 <= length <= _MAX_BODY:
            raise BadRequest(f"request body must be 0 to {_MAX_BODY} bytes")
        return self.rfile.read(length)

    def _complete(self, request: dict[str, Any], prompt: str) -> None:
        model = self.server.model
        text = reply_for(self.server.replies, prompt)
        finish = "stop"
        max_tokens = request.get("max_tokens")
        completion_tokens = estimate_tokens(text)
        if isinstance(max_tokens, int) and 0 < max_tokens < completion_tokens:
            text, finish, completion_tokens = text[: max_tokens * 4], "length", max_tokens
        completion_id = f"chatcmpl-replay-{self.server.next_id()}"
        usage = {
            "prompt_tokens": estimate_tokens(prompt),
            "completion_tokens": completion_tokens,
            "total_tokens": estimate_tokens(prompt) + completion_tokens,
        }
        if request.get("stream") is True:
            self._send_stream(completion_id, model, text, finish, usage)
            return
        self._send_json(
            200,
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                    }
                ],
                "usage": usage,
            },
        )

    def _send_stream(
        self, completion_id: str, model: str, text: str, finish: str, usage: dict[str, int]
    ) -> None:
        """Server-sent events as OpenAI streams them; the body ends when the connection does."""
        created = int(time.time())

        def event(chunk: dict[str, Any]) -> bytes:
            return b"data: " + _dumps(chunk) + b"\n\n"

        def delta(part: dict[str, str], finish_reason: str | None) -> bytes:
            choice = {"index": 0, "delta": part, "finish_reason": finish_reason}
            return event(
                {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [choice],
                }
            )

        pieces = [text[i : i + 16] for i in range(0, len(text), 16)] or [""]
        events = [delta({"role": "assistant"}, None)]
        events += [delta({"content": p}, None) for p in pieces]
        events.append(delta({}, finish))
        tail = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        events += [event(tail), b"data: [DONE]\n\n"]
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for e in events:
            self.wfile.write(e)
        self.wfile.flush()

    def _send_json(self, status: int, document: dict[str, Any]) -> None:
        payload = _dumps(document)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)

    def _send_error(self, status: int, message: str) -> None:
        self._send_json(
            status, {"error": {"message": message, "type": "replay_error", "code": status}}
        )


def _dumps(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def estimate_tokens(text: str) -> int:
    """Tokens reported for `text`: one per four characters, at least one."""
    return max(1, len(text) // 4)


def parse_chat_request(
    body: bytes, loads: Callable[[bytes], Any] = json.loads
) -> tuple[dict[str, Any], str]:
    """The chat request in `body` and the text of its last user message (what the markers are
    looked for in); BadRequest says what is wrong with it."""
    try:
        request = loads(body)
    except ValueError as e:
        raise BadRequest(f"request body is not JSON: {e}") from None
    if not isinstance(request, dict):
        raise BadRequest("request body must be a JSON object")
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list")
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return request, _content_text(message.get("content"))
    raise BadRequest("no user message")


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "".join(p for p in parts if isinstance(p, str))
    raise BadRequest("message content must be text or a list of text parts")
