"""Anthropic's Messages API, spoken natively (POST /v1/messages), not through a compatibility shim.

Translates a Prompt to the wire and back (providers/http.py) and maps Anthropic's error classes onto
ours; nothing else. System messages go to the top-level `system` field, as the API requires.

    HTTP 429 rate_limit_error       → RateLimited (Retry-After honoured)
    HTTP 529 overloaded_error       → RateLimited (the server asks us to back off)
    HTTP 500 api_error, 502/503/504 → Transient
    HTTP 401 authentication_error,
         403 permission_error       → AuthError
    HTTP 400 invalid_request_error,
         404 not_found_error,
         413 request_too_large      → BadRequest
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proctor.errors import AuthError, BadRequest, RateLimited, Transient
from proctor.providers.adapter import ChatApi, HttpAdapter
from proctor.providers.http import (
    _RAW,
    HttpReply,
    parse_retry_after,
    parse_usage,
    raise_for_redirect,
)
from proctor.types import Completion, FinishReason, GenerationParams, Prompt

if TYPE_CHECKING:
    import httpx

    from proctor.providers.anthropic_batch import AnthropicBatches

ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
ANTHROPIC_VERSION = "2023-06-01"

_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


class AnthropicProvider(HttpAdapter):
    supports_tools = False
    """Anthropic tool use is not wired yet."""

    def __init__(
        self,
        name: str,
        model: str,
        api_key: str | None,
        *,
        base_url: str = ANTHROPIC_BASE_URL,
        max_concurrency: int = 8,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(name, model, api_key, max_concurrency, API)
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        self._connect(base_url, headers, transport, max_connections=max_concurrency * 2)

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        if prompt.tools:
            raise BadRequest("this provider does not support tool calls")
        return await super().complete(prompt, params)

    def request_body(self, prompt: Prompt, params: GenerationParams) -> dict[str, Any]:
        """The Messages API body of one request (a batch request's `params` too)."""
        system = "\n\n".join(m.content for m in prompt.messages if m.role == "system")
        body: dict[str, Any] = {
            "model": self._model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in prompt.messages
                if m.role != "system"
            ],
        }
        if system:
            body["system"] = system
        return body

    def batches(self) -> AnthropicBatches:
        """Anthropic's Message Batches API, for `proctor run --batch`."""
        from proctor.providers.anthropic_batch import AnthropicBatches

        return AnthropicBatches(
            self._client, self._model, self._secret, self.request_body, self._api
        )


def _error(resp: HttpReply) -> tuple[str, str]:
    try:
        data = resp.json()
    except ValueError:
        return "", resp.text[:_RAW] or resp.reason_phrase
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("type") or ""), str(err.get("message") or "")[:_RAW]
    return "", str(data)[:_RAW]


def raise_for_status(resp: HttpReply) -> None:
    raise_for_redirect(resp)
    code = resp.status_code
    if code < 400:
        return
    kind, message = _error(resp)
    detail = f"HTTP {code} {kind}: {message}".replace(" : ", ": ")
    if code == 429 or code == 529 or kind in ("rate_limit_error", "overloaded_error"):
        retry_after = parse_retry_after(resp.headers.get("retry-after"))
        raise RateLimited(detail, status=code, retry_after_s=retry_after)
    if code in (401, 403) or kind in ("authentication_error", "permission_error"):
        raise AuthError(detail, status=code)
    if code >= 500 or code == 408:
        raise Transient(detail, status=code)
    raise BadRequest(detail, status=code)


def parse_message(data: object, model: str, latency: float, where: str) -> Completion:
    """A Messages API reply (a response body, or a batch result's `message`) as a Completion."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise Transient(f"{where}: response has no content blocks")
    text = "".join(
        str(block.get("text") or "")
        for block in data["content"]
        if isinstance(block, dict) and block.get("type") == "text"
    )
    return Completion(
        text=text,
        finish_reason=_STOP.get(str(data.get("stop_reason")), "unknown"),
        usage=parse_usage(data.get("usage"), "input_tokens", "output_tokens"),
        model=data["model"] if isinstance(data.get("model"), str) and data["model"] else model,
        latency_s=latency,
    )


API = ChatApi("messages", raise_for_status, parse_message)
"""Where a chat request goes, how an error status and a reply read."""
