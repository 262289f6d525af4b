"""POST /v1/messages: Anthropic's Messages API, as strict as the real one about its shape.

The reply text is the stub's usual one (`StubApp.reply_text` of the last user message: the
scripted replies of --replies, else the arithmetic answer). What Anthropic refuses with a 400
`invalid_request_error` is refused here too: no `anthropic-version` header, no `max_tokens`,
a "system" role inside `messages` (the system prompt is a top-level field). With --api-key the
`x-api-key` header must carry it (401 `authentication_error`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from support.stub.app import StubApp

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


async def messages_route(app: StubApp, scope: Scope, receive: Receive, send: Send) -> None:
    from proctor.replay.server import estimate_tokens as _tokens
    from support.stub.app import _loads, _read_body, _send_json

    body = await _read_body(receive)
    if body is None:
        return
    headers = {bytes(k).decode("latin-1"): bytes(v).decode("latin-1") for k, v in scope["headers"]}
    app.count_request(headers.get("x-api-key"))
    if app.config.api_key is not None and headers.get("x-api-key") != app.config.api_key:
        await _send_json(send, 401, _error("authentication_error", "invalid x-api-key (stub)"))
        return
    try:
        request = _loads(body)
    except ValueError:
        request = None
    problem = _problem(request, headers)
    if problem is not None or not isinstance(request, dict):
        await _send_json(send, 400, _error("invalid_request_error", problem or "not JSON"))
        return
    prompt = _last_user_text(request["messages"])
    text = app.reply_text(prompt)
    stop, out_tokens = "end_turn", _tokens(text)
    if out_tokens > request["max_tokens"]:
        text, stop, out_tokens = (
            text[: request["max_tokens"] * 4],
            "max_tokens",
            request["max_tokens"],
        )
    n = app.count_completion()
    await _send_json(
        send,
        200,
        {
            "id": f"msg_stub_{n}",
            "type": "message",
            "role": "assistant",
            "model": request.get("model") or app.config.model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": _tokens(prompt), "output_tokens": out_tokens},
        },
    )


def _problem(request: object, headers: dict[str, str]) -> str | None:
    if not headers.get("anthropic-version"):
        return "anthropic-version: header is required"
    if not isinstance(request, dict):
        return "request body must be a JSON object"
    if not isinstance(request.get("max_tokens"), int) or request["max_tokens"] < 1:
        return "max_tokens: Field required"
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            return (
                f"messages.{i}.role: Input should be 'user' or 'assistant' (a system prompt "
                "goes in the top-level system field)"
            )
    if "system" in request and not isinstance(request["system"], str | list):
        return "system: Input should be a valid string"
    return None


def _last_user_text(messages: list[Any]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ""


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
