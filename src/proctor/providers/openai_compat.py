"""Any `/v1/chat/completions` endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio).

Translates a Prompt to the wire and back (through providers/http.py) and classifies failures;
nothing else. The API key is read from the environment by the caller and only ever placed in a
request header: it never appears in a stored record or an error message."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from proctor.errors import AuthError, BadRequest, ProviderError, RateLimited, Transient
from proctor.providers.adapter import ChatApi, HttpAdapter
from proctor.providers.http import (
    _RAW,
    HttpReply,
    parse_retry_after,
    parse_usage,
    raise_for_redirect,
)
from proctor.types import (
    Completion,
    FinishReason,
    GenerationParams,
    Message,
    Prompt,
    ToolCall,
)

if TYPE_CHECKING:
    import httpx

    from proctor.providers.openai_batch import OpenAIBatches

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
}

TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "calculator": {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": (
                "Evaluate an arithmetic expression exactly (+ - * / // %, parentheses, "
                "decimals) and return the exact result: an integer, a decimal or p/q."
            ),
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    }
}


class OpenAICompatProvider(HttpAdapter):
    def __init__(
        self,
        name: str,
        model: str,
        base_url: str,
        api_key: str | None,
        *,
        max_concurrency: int = 16,
        transport: httpx.AsyncBaseTransport | None = None,
        auth_hint: str = "",
    ) -> None:
        super().__init__(name, model, api_key, max_concurrency, API)
        self._auth_hint = auth_hint  # added to an authentication error: how to give a key
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        # The caller bounds how many requests are in flight; the pool must not bound it again
        # (extra requests would queue inside the pool, unseen by timeouts and progress).
        self._connect(base_url, headers, transport)

    def _clean(self, error: ProviderError) -> ProviderError:
        clean = super()._clean(error)
        if isinstance(error, AuthError) and self._auth_hint:
            # after the cut of the server's text, so the hint is always read
            return AuthError(f"{clean}; {self._auth_hint}", status=error.status)
        return clean

    def request_body(self, prompt: Prompt, params: GenerationParams) -> dict[str, Any]:
        """The chat/completions body of one request (a batch line's `body` too)."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [wire_message(m) for m in prompt.messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "stream": False,
        }
        if params.seed is not None:
            body["seed"] = params.seed
        if prompt.tools:
            unknown = [t for t in prompt.tools if t not in TOOL_SCHEMAS]
            if unknown:
                raise BadRequest(f"unknown tool(s): {', '.join(unknown)}")
            body["tools"] = [TOOL_SCHEMAS[t] for t in prompt.tools]
        return body

    def batches(self) -> OpenAIBatches:
        """This endpoint's Batch API (files upload, /batches), for `proctor run --batch`."""
        from proctor.providers.openai_batch import OpenAIBatches

        return OpenAIBatches(
            self._client, self._model, self._secret, self.request_body, self._api
        )


def wire_message(m: Message) -> dict[str, Any]:
    """A message as the chat/completions API wants it; a plain message is just role and text."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments_json},
            }
            for c in m.tool_calls
        ]
    if m.role == "tool":
        out["tool_call_id"] = m.tool_call_id
    return out


def _tool_calls(message: object) -> tuple[ToolCall, ...]:
    """The tool calls of a reply's message; malformed entries are skipped, never invented."""
    raw = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(raw, list):
        return ()
    calls: list[ToolCall] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            continue
        fn = entry.get("function")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            continue
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = json.dumps(args if args is not None else {})
        call_id = entry.get("id")
        call_id = call_id if isinstance(call_id, str) else f"call_{i}"
        calls.append(ToolCall(id=call_id, name=fn["name"], arguments_json=args))
    return tuple(calls)


def raise_for_status(resp: HttpReply) -> None:
    raise_for_redirect(resp)
    code = resp.status_code
    if code < 400:
        return
    detail = _error_detail(resp)
    if code == 429:
        raise RateLimited(
            f"HTTP 429 rate limited: {detail}",
            retry_after_s=parse_retry_after(resp.headers.get("retry-after")),
        )
    if code in (401, 403):
        raise AuthError(f"HTTP {code}: authentication failed: {detail}", status=code)
    if code in (408, 409) or code >= 500:
        raise Transient(f"HTTP {code}: {detail}", status=code)
    raise BadRequest(f"HTTP {code}: {detail}", status=code)


def _error_detail(resp: HttpReply) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.text[:_RAW] or resp.reason_phrase
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])[:_RAW]
        if isinstance(err, str):
            return err[:_RAW]
    return str(data)[:_RAW]


def parse_completion(data: object, model: str, latency: float, where: str) -> Completion:
    """A chat completion document (a reply's body, or a batch result line's) as a Completion;
    Transient when it holds no reply."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise Transient(f"{where}: response has no choices")
    choice = choices[0]
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise Transient("response message content is not text")
    assert isinstance(data, dict)
    return Completion(
        text=text,
        finish_reason=_FINISH.get(str(choice.get("finish_reason")), "unknown"),
        usage=parse_usage(data.get("usage"), "prompt_tokens", "completion_tokens"),
        model=_reported_model(data.get("model"), model),
        latency_s=latency,
        tool_calls=_tool_calls(message),
    )


def _reported_model(value: object, asked: str) -> str:
    """The model the server says answered; the one asked for when it names none in text."""
    return value if isinstance(value, str) and value else asked


API = ChatApi("chat/completions", raise_for_status, parse_completion)
"""Where a chat request goes, how an error status and a reply read."""
