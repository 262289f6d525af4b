from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from proctor.providers.openai_compat import OpenAICompatProvider
from support.stub import StubConfig, StubHandle, run_stub

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback only: httpx would send 127.0.0.1 through a proxy named in the environment."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


StartStub = Callable[..., StubHandle]


@pytest.fixture
def start_stub() -> Iterator[StartStub]:
    """Start stubs (StubConfig keyword arguments); all are stopped at teardown."""
    with ExitStack() as stack:

        def start(**config: Any) -> StubHandle:
            return stack.enter_context(run_stub(StubConfig(**config)))

        yield start


MakeProvider = Callable[[StubHandle], OpenAICompatProvider]


@pytest.fixture
async def make_provider() -> AsyncIterator[MakeProvider]:
    """OpenAICompatProvider instances pointed at a stub; all are closed at teardown."""
    made: list[OpenAICompatProvider] = []

    def make(stub: StubHandle) -> OpenAICompatProvider:
        provider = OpenAICompatProvider("openai-compat/stub", "stub", stub.base_url, None)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()
