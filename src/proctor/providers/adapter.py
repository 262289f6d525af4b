"""What the two HTTP API adapters (OpenAI-compatible chat/completions, Anthropic's Messages)
share: the model asked for, the key (scrubbed from every reply and line printed from the moment
it is given, redacted from every error), the pooled client, and one call: POST the body, classify
the status, read the reply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from proctor._util.redact import register_secret
from proctor.errors import ProviderError
from proctor.providers.base import Named
from proctor.providers.http import (
    HttpReply,
    JsonClient,
    parse_json_reply,
    post_json,
    redacted,
    reply_notes,
)
from proctor.types import Completion, GenerationParams, Prompt

ReadReply = Callable[[object, str, float, str], Completion]
"""(reply's JSON, model asked for, latency, where) → the Completion; Transient when it holds no
reply."""


class HttpAdapter(Named):
    """The subclass sets `_client` (its headers carry the key) and says how its API is asked
    (`request_body`, `_complete`)."""

    _client: JsonClient

    def __init__(self, name: str, model: str, api_key: str | None, max_concurrency: int) -> None:
        super().__init__(name, max_concurrency)
        self._model = model
        self._secret = api_key or ""
        register_secret(api_key)  # scrubbed from every reply and line printed from now on

    def request_body(self, prompt: Prompt, params: GenerationParams) -> dict[str, Any]:
        raise NotImplementedError

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        try:
            return await self._complete(prompt, params)
        except ProviderError as e:
            raise self._clean(e) from e.__cause__

    async def _complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        raise NotImplementedError

    def _clean(self, error: ProviderError) -> ProviderError:
        """The error as the user reads it: the key redacted (servers echo what they got)."""
        return redacted(error, self._secret)

    async def _ask(
        self,
        path: str,
        prompt: Prompt,
        params: GenerationParams,
        check: Callable[[HttpReply], None],
        read: ReadReply,
    ) -> Completion:
        """POST the request body to `path`; `check` raises for an error status, `read` reads
        the reply's JSON."""
        body = self.request_body(prompt, params)
        resp, latency = await post_json(
            self._client, path, body, params.timeout_s, params.max_reply_bytes
        )
        check(resp)
        completion = read(parse_json_reply(resp), self._model, latency, f"HTTP {resp.status_code}")
        return replace(completion, notes=reply_notes(resp))

    async def aclose(self) -> None:
        await self._client.aclose()
