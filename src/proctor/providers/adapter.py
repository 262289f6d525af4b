"""What the two HTTP API adapters (OpenAI-compatible chat/completions, Anthropic's Messages)
share: the model asked for, the key (scrubbed from every reply and line printed from the moment
it is given, redacted from every error), the pooled client, and one call: POST the body, classify
the status, read the reply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from proctor._util.redact import register_secret
from proctor.errors import ProviderError
from proctor.providers.base import Named
from proctor.providers.http import (
    HttpReply,
    JsonClient,
    is_loopback,
    json_client,
    parse_json_reply,
    post_json,
    redacted,
    reply_notes,
)
from proctor.types import Completion, GenerationParams, Prompt

if TYPE_CHECKING:
    import httpx

ReadReply = Callable[[object, str, float, str], Completion]
"""(reply's JSON, model asked for, latency, where) → the Completion; Transient when it holds no
reply."""


@dataclass(frozen=True)
class ChatApi:
    """How one API is spoken: where a chat request goes, how an error status is classified
    (raising), how a reply's JSON reads (a live reply's body, or a batch result's)."""

    path: str
    check: Callable[[HttpReply], None]
    read: ReadReply


class HttpAdapter(Named):
    """The subclass connects (`_connect`, with headers that carry the key) and makes the request
    body (`request_body`); `api` says how its API is spoken."""

    _client: JsonClient

    def __init__(
        self, name: str, model: str, api_key: str | None, max_concurrency: int, api: ChatApi
    ) -> None:
        super().__init__(name, max_concurrency)
        self._api = api
        self._model = model
        self._secret = api_key or ""
        register_secret(api_key)  # scrubbed from every reply and line printed from now on

    def _connect(
        self,
        base_url: str,
        headers: dict[str, str],
        transport: httpx.AsyncBaseTransport | None,
        max_connections: int | None = None,
    ) -> None:
        """The pooled client to `base_url`; a server on this machine is never reached through a
        proxy from the environment."""
        self._client = json_client(
            base_url,
            headers,
            transport=transport,
            trust_env=not is_loopback(base_url),
            max_connections=max_connections,
        )

    def request_body(self, prompt: Prompt, params: GenerationParams) -> dict[str, Any]:
        raise NotImplementedError

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        try:
            return await self._complete(prompt, params)
        except ProviderError as e:
            raise self._clean(e) from e.__cause__

    def _clean(self, error: ProviderError) -> ProviderError:
        """The error as the user reads it: the key redacted (servers echo what they got)."""
        return redacted(error, self._secret)

    async def _complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        """POST the request body; an error status raises, the reply's JSON is read."""
        body = self.request_body(prompt, params)
        resp, latency = await post_json(
            self._client, self._api.path, body, params.timeout_s, params.max_reply_bytes
        )
        self._api.check(resp)
        where = f"HTTP {resp.status_code}"
        completion = self._api.read(parse_json_reply(resp), self._model, latency, where)
        return replace(completion, notes=reply_notes(resp))

    async def aclose(self) -> None:
        await self._client.aclose()
