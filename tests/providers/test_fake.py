"""The scripted FakeProvider that the other tests lean on."""

from __future__ import annotations

import asyncio

from proctor.providers.fake import FakeProvider
from proctor.types import GenerationParams, Message, Prompt

PROMPT = Prompt(messages=(Message("user", "1 + 1"),), variant="B", lang="en")


async def test_list_script_in_order_without_delay() -> None:
    p = FakeProvider("f", ["a", "b", "c"])
    got = [(await p.complete(PROMPT, GenerationParams())).text for _ in range(4)]
    assert got == ["a", "b", "c", "a"]


async def test_list_script_each_reply_once_with_delay_and_concurrency() -> None:
    p = FakeProvider("f", ["a", "b", "c", "d"], delay_s=0.01)
    got = await asyncio.gather(*(p.complete(PROMPT, GenerationParams()) for _ in range(4)))
    assert sorted(c.text for c in got) == ["a", "b", "c", "d"]
