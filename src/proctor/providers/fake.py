"""A scripted provider for tests: replies come from a function of the prompt, or a list."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from proctor.errors import ProviderError
from proctor.providers.base import Named
from proctor.types import Completion, FinishReason, GenerationParams, Prompt, ToolCall, Usage

Reply = str | tuple[str, FinishReason] | ProviderError | ToolCall | tuple[ToolCall, ...]
"""A text, a (text, finish_reason) pair, an error to raise, or tool call(s) to ask for."""
Script = Callable[[Prompt], Reply]


class FakeProvider(Named):
    """Answers each prompt with `script(prompt)`: a text, a (text, finish_reason) pair, a
    ProviderError to raise, or ToolCall(s) (a reply asking for tools, finish "tool_calls").
    Counts calls so tests can check what was asked."""

    def __init__(
        self,
        name: str = "fake",
        script: Script | Sequence[Reply] = "Final answer: 0",
        *,
        delay_s: float = 0.0,
        max_concurrency: int = 8,
        keep_prompts: bool = True,
    ) -> None:
        super().__init__(name, max_concurrency)
        self._keep_prompts = keep_prompts
        self._delay_s = delay_s
        self._replies: list[Reply] | None = None
        if callable(script):
            self._script: Script = script
        elif isinstance(script, str | tuple | ProviderError | ToolCall):
            fixed: Reply = script
            self._script = lambda _p: fixed
        else:
            self._replies = list(script)
            self._script = lambda _p: "unused"
        self.calls = 0
        self.prompts: list[Prompt] = []

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        self.calls += 1
        n = self.calls  # fixed at entry: concurrent calls each keep their own place in a list
        if self._keep_prompts:  # for tests; a long CLI run must not hold every prompt
            self.prompts.append(prompt)
        start = time.perf_counter()
        if self._delay_s:
            await asyncio.sleep(self._delay_s)
        reply = (
            self._script(prompt)
            if self._replies is None
            else self._replies[(n - 1) % len(self._replies)]
        )
        if isinstance(reply, ProviderError):
            raise reply
        calls: tuple[ToolCall, ...] = ()
        if isinstance(reply, ToolCall):
            calls = (reply,)
        elif isinstance(reply, tuple) and reply and isinstance(reply[0], ToolCall):
            calls = tuple(c for c in reply if isinstance(c, ToolCall))
        text: str
        finish: FinishReason
        if calls:
            text, finish = "", "tool_calls"
        elif isinstance(reply, tuple):
            text, finish = str(reply[0]), reply[1] if isinstance(reply[1], str) else "stop"
        else:
            text, finish = str(reply), "stop"
        words = len(text.split())
        return Completion(
            text=text,
            finish_reason=finish,
            usage=Usage(
                prompt_tokens=sum(len(m.content.split()) for m in prompt.messages),
                completion_tokens=words,
            ),
            model=self._name,
            latency_s=time.perf_counter() - start,
            tool_calls=calls,
        )

    async def aclose(self) -> None:
        return None


def constant_reply(text: str) -> Script:
    """A script that always gives `text` (the CLI's `fake/const:<text>`)."""
    return lambda _p: text
