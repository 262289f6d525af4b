"""LocalProvider's threading, with a stand-in for the llama-cpp model (no model is loaded): every
generation runs on one dedicated thread, a call cancelled by its timeout still keeps the next one
waiting, aclose frees the model after that generation and ends the thread."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import BadRequest, Transient
from proctor.providers.local import LocalProvider
from proctor.types import GenerationParams, Message, Prompt

PROMPT = Prompt((Message("user", "What is 2 + 2?"),), "A", "en")
PARAMS = GenerationParams(max_tokens=8)


class FakeLlama:
    """Answers like `Llama.create_chat_completion`; records the thread of every call and how many
    ran at once; a call can be held until `release` is set."""

    def __init__(self, hold: bool = False, error: Exception | None = None) -> None:
        self.threads: list[int] = []
        self.active = 0
        self.most_active = 0
        self.events: list[str] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.error = error
        self.closed_while_active: bool | None = None
        self._count = threading.Lock()

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        with self._count:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        self.threads.append(threading.get_ident())
        self.events.append("start")
        self.started.set()
        try:
            self.release.wait(10)
            if self.error is not None:
                raise self.error
            return {
                "choices": [{"message": {"content": "4"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 7, "completion_tokens": 1},
            }
        finally:
            self.events.append("end")
            with self._count:
                self.active -= 1

    def close(self) -> None:
        self.closed_while_active = self.active > 0
        self.events.append("close")


async def cancel_midway(provider: LocalProvider, llama: FakeLlama) -> None:
    """A call cancelled while its generation runs, as the caller's timeout cancels it."""
    call = asyncio.create_task(provider.complete(PROMPT, PARAMS))
    for _ in range(10_000):
        if llama.started.is_set():
            break
        await asyncio.sleep(0.001)
    assert llama.started.is_set()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


def provider_with(tmp_path: Path, llama: FakeLlama) -> LocalProvider:
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"")
    provider = LocalProvider("local/" + str(gguf), gguf)
    provider._llama = llama  # _load keeps a model that is already there
    return provider


async def test_every_generation_runs_on_one_dedicated_thread(tmp_path: Path) -> None:
    llama = FakeLlama()
    provider = provider_with(tmp_path, llama)
    for _ in range(5):
        completion = await provider.complete(PROMPT, PARAMS)
        assert completion.text == "4"
        assert completion.finish_reason == "stop"
        assert completion.usage.completion_tokens == 1
    # concurrent callers too (the runner's concurrency is 1, but a judge or a dialogue may share)
    await asyncio.gather(*(provider.complete(PROMPT, PARAMS) for _ in range(3)))
    assert len(set(llama.threads)) == 1
    assert llama.threads[0] != threading.get_ident()  # never the event loop's thread
    assert llama.most_active == 1
    await provider.aclose()


async def test_a_cancelled_call_keeps_the_next_one_waiting(tmp_path: Path) -> None:
    llama = FakeLlama(hold=True)
    provider = provider_with(tmp_path, llama)
    await cancel_midway(provider, llama)  # its generation goes on in the model's thread
    second = asyncio.create_task(provider.complete(PROMPT, PARAMS))
    await asyncio.sleep(0.05)
    assert not second.done()
    assert llama.events == ["start"]  # the second has not started beside the first
    llama.release.set()
    assert (await second).text == "4"
    assert llama.events == ["start", "end", "start", "end"]
    assert llama.most_active == 1
    assert len(set(llama.threads)) == 1
    await provider.aclose()


async def test_aclose_frees_the_model_after_a_running_generation_and_ends_the_thread(
    tmp_path: Path,
) -> None:
    llama = FakeLlama(hold=True)
    provider = provider_with(tmp_path, llama)
    await cancel_midway(provider, llama)
    executor = provider._executor
    assert executor is not None
    worker = next(t for t in threading.enumerate() if t.ident == llama.threads[0])
    closing = asyncio.create_task(provider.aclose())
    await asyncio.sleep(0.05)
    assert not closing.done()  # waits for the generation the cancelled call left running
    llama.release.set()
    await closing
    assert llama.events == ["start", "end", "close"]
    assert llama.closed_while_active is False
    assert provider._llama is None and provider._executor is None
    worker.join(5)
    assert not worker.is_alive()
    with pytest.raises(RuntimeError):
        executor.submit(print)  # shut down


async def test_aclose_without_a_call_closes_the_model(tmp_path: Path) -> None:
    llama = FakeLlama()
    provider = provider_with(tmp_path, llama)
    await provider.aclose()
    assert llama.events == ["close"]
    assert provider._llama is None


@pytest.mark.parametrize(
    ("error", "expected"),
    [(ValueError("too long"), BadRequest), (RuntimeError("decode failed"), Transient)],
)
async def test_model_errors_keep_their_mapping(
    tmp_path: Path, error: Exception, expected: type[Exception]
) -> None:
    provider = provider_with(tmp_path, FakeLlama(error=error))
    with pytest.raises(expected):
        await provider.complete(PROMPT, PARAMS)
    await provider.aclose()
