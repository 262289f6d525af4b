"""The provider interface. A provider only translates a Prompt to its wire format and back, and
classifies failures into proctor.errors.ProviderError subclasses. Retries, limits, timeouts and
budgets live in proctor.calling, once, for every provider."""

from __future__ import annotations

from typing import Protocol

from proctor.types import Completion, GenerationParams, Prompt


class Provider(Protocol):
    @property
    def name(self) -> str:
        """The model string the user gave, e.g. "local" or "openai-compat/qwen@http://…/v1"."""
        ...

    @property
    def max_concurrency(self) -> int:
        """How many calls may be in flight at once by default (1 for an in-process model)."""
        ...

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        """One chat completion; raises ProviderError on failure, never returns error text."""
        ...

    async def aclose(self) -> None: ...


def supports_tools(provider: Provider) -> bool:
    """Whether the provider can be offered tools (function calling). A provider says it cannot
    with a `supports_tools = False` attribute; the run then refuses `M+calculator` before its
    first call, instead of failing every call."""
    return bool(getattr(provider, "supports_tools", True))


class Named:
    """A provider's name and default concurrency, as it was made with: what every built-in
    provider answers `name` and `max_concurrency` from."""

    def __init__(self, name: str, max_concurrency: int) -> None:
        self._name = name
        self._max_concurrency = max_concurrency

    @property
    def name(self) -> str:
        return self._name

    @property
    def max_concurrency(self) -> int:
        return self._max_concurrency
