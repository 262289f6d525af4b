"""The edge between proctor and a plugin's provider (entry point group "proctor.providers").

A built-in provider raises only `ProviderError`s and returns only `Completion`s; a plugin's is
other people's code, so its provider is held to that here, once: whatever else `complete`
raises is a failed call that names the plugin (not retried: asking again would raise again),
and a reply that is not a Completion is a failed call too. Either way the run goes on and the
record says why, never a traceback and never a wrong answer."""

from __future__ import annotations

from proctor.errors import ConfigError, ProviderError
from proctor.providers.base import Provider
from proctor.types import Completion, GenerationParams, Prompt

_NEEDS = ("name", "max_concurrency", "complete", "aclose")


class PluginProvider:
    """A plugin's provider, with its failures made proctor's failed calls."""

    def __init__(self, who: str, inner: Provider) -> None:
        """`who` names the code in messages: "plugin 'acme'", "provider 'my-bot'"."""
        missing = [a for a in _NEEDS if not hasattr(inner, a)]
        if missing:
            raise ConfigError(
                f"{who} made {type(inner).__name__}, not a provider: it has no "
                f"{', '.join(missing)} (see the README's 'Extending proctor')"
            )
        self._who = who
        self._inner = inner
        self.supports_tools = bool(getattr(inner, "supports_tools", True))

    @property
    def name(self) -> str:
        return str(self._inner.name)

    @property
    def max_concurrency(self) -> int:
        value = self._inner.max_concurrency
        return value if isinstance(value, int) and value >= 1 else 1

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        try:
            reply = await self._inner.complete(prompt, params)
        except ProviderError:
            raise
        # Its code, not ours: one failed call that names it; the run and the other calls go on.
        except Exception as e:
            raise ProviderError(
                f"{self._who} raised {type(e).__name__}: {' '.join(str(e).split())[:300]}"
            ) from e
        if not isinstance(reply, Completion):
            raise ProviderError(f"{self._who} returned {type(reply).__name__}, not a Completion")
        return reply

    async def aclose(self) -> None:
        await self._inner.aclose()
