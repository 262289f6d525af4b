"""A scripted OpenAI-compatible server on 127.0.0.1, for the tests of dialogues and workflows:
each chat request is answered by a function of its messages, which also says how slowly,
whether the reply carries a `usage` object, and whether it is an HTTP error instead; and
`GET /slow/SECONDS` is a web page that takes that long (a slow tool).

    def script(messages):                      # the request's messages, as JSON
        if "JSON summary" in messages[-1]["content"]:
            return Scripted('{"conflict": true}', usage=False)
        return Scripted("## Issue\\n…", delay_s=0.5)

    with run_scripted(script) as server:
        server.model                           # "openai-compat/scripted@http://127.0.0.1:P/v1"
        server.asked                           # every last user message, in order

Not a part of the evaluation pipe: nothing in proctor's run path imports it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from proctor.replay.server import BadRequest, parse_chat_request
from support.stub.app import (
    Receive,
    Scope,
    Send,
    _read_body,
    _send_error,
    _send_json,
)
from support.stub.server import HOST, bind_loopback

__all__ = ["Scripted", "ScriptedServer", "run_scripted"]


@dataclass(frozen=True)
class Scripted:
    """One reply: its text, `delay_s` before it, a usage object or none, or an HTTP `status`
    error (e.g. 500) instead of a completion."""

    text: str = ""
    delay_s: float = 0.0
    usage: bool = True
    status: int = 200
    finish_reason: str = "stop"
    tokens: tuple[int, int] | None = None
    """(prompt, completion) tokens to report; default about 4 characters a token."""


Script = Callable[[list[dict[str, Any]]], Scripted]


@dataclass
class ScriptedApp:
    script: Script
    asked: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] == "GET" and scope["path"].startswith("/slow/"):
            # a slow web page for a workflow's http_get tool: GET /slow/SECONDS
            await asyncio.sleep(float(scope["path"].removeprefix("/slow/")))
            await _send_json(send, 200, {"page": "slow"})
            return
        if scope["path"] != "/v1/chat/completions" or scope["method"] != "POST":
            await _send_error(send, 404, f"no route {scope['method']} {scope['path']}")
            return
        body = await _read_body(receive)
        if body is None:
            return
        try:
            request, prompt = parse_chat_request(body)
        except BadRequest as e:
            await _send_error(send, 400, str(e))
            return
        with self.lock:
            self.asked.append(prompt)
        reply = self.script(list(request["messages"]))
        if reply.delay_s > 0:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            await _send_error(send, reply.status, f"scripted error {reply.status}")
            return
        document: dict[str, Any] = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
        }
        if reply.usage:
            asked, said = reply.tokens or (max(1, len(prompt) // 4), max(1, len(reply.text) // 4))
            document["usage"] = {
                "prompt_tokens": asked,
                "completion_tokens": said,
                "total_tokens": asked + said,
            }
        await _send_json(send, 200, document)


@dataclass(frozen=True)
class ScriptedServer:
    port: int
    app: ScriptedApp

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def model(self) -> str:
        return f"openai-compat/scripted@{self.base_url}"

    @property
    def asked(self) -> list[str]:
        with self.app.lock:
            return list(self.app.asked)


@contextmanager
def run_scripted(script: Script) -> Iterator[ScriptedServer]:
    """Serve `script` on 127.0.0.1 (a free port) from a daemon thread until the block ends."""
    app = ScriptedApp(script)
    sock = bind_loopback(0)
    config = uvicorn.Config(
        app,
        interface="asgi3",
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="proctor-scripted", daemon=True
    )
    try:
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the scripted server did not start")
            time.sleep(0.005)
        yield ScriptedServer(sock.getsockname()[1], app)
    finally:
        server.should_exit = True
        thread.join(5)
        if thread.is_alive():
            server.force_exit = True
            thread.join(5)
        sock.close()
