"""The same seed and the same requests meet the same faults; another seed meets others."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from proctor.errors import ProviderError
from proctor.providers.openai_compat import OpenAICompatProvider
from proctor.types import GenerationParams, Message, Prompt
from support.stub import StubConfig, StubHandle, fault_for

StartStub = Callable[..., StubHandle]
MakeProvider = Callable[[StubHandle], OpenAICompatProvider]

PARAMS = GenerationParams(max_tokens=64, timeout_s=10.0)
# Eight prompts, each asked three times in a row, as a retrying client would.
SCRIPT = [
    Prompt((Message("user", f"Problem: {a} + {a + 1}"),), "B", "en")
    for a in range(10, 18)
    for _ in range(3)
]


async def _outcomes(stub: StubHandle, provider: OpenAICompatProvider) -> list[str]:
    """What each request of SCRIPT got, asked one at a time: "ok" or the error and status."""
    seen: list[str] = []
    for prompt in SCRIPT:
        try:
            await provider.complete(prompt, PARAMS)
        except ProviderError as e:
            seen.append(f"{type(e).__name__}:{e.status}:{str(e)[:24]}")
        else:
            seen.append("ok")
    return seen


async def test_same_seed_same_faults(start_stub: StartStub, make_provider: MakeProvider) -> None:
    first, second = start_stub(seed=7, fault_rate=0.5), start_stub(seed=7, fault_rate=0.5)
    a = await _outcomes(first, make_provider(first))
    b = await _outcomes(second, make_provider(second))
    assert a == b
    assert first.stats().faults == second.stats().faults
    assert "ok" in a and any(o != "ok" for o in a)


async def test_another_seed_other_faults(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    first, other = start_stub(seed=7, fault_rate=0.5), start_stub(seed=8, fault_rate=0.5)
    assert await _outcomes(first, make_provider(first)) != await _outcomes(
        other, make_provider(other)
    )


async def test_reset_starts_the_sequence_again(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(seed=5, fault_rate=0.5)
    provider = make_provider(stub)
    first = await _outcomes(stub, provider)
    stub.reset()
    assert stub.stats().requests == 0
    assert await _outcomes(stub, provider) == first
    with httpx.Client(trust_env=False) as client:
        root = stub.base_url.removesuffix("/v1")
        assert client.post(f"{root}/reset").json() == {"ok": True}
        assert client.get(f"{root}/stats").json()["requests"] == 0
    assert await _outcomes(stub, provider) == first


async def test_faults_follow_fault_for(start_stub: StartStub, make_provider: MakeProvider) -> None:
    config = StubConfig(seed=9, fault_rate=0.6, faults=("500", "502", "503"))
    stub = start_stub(seed=9, fault_rate=0.6, faults=("500", "502", "503"))
    outcomes = await _outcomes(stub, make_provider(stub))
    keys = list(stub.stats().by_body)
    assert len(keys) == len(SCRIPT) // 3  # one body per prompt, in the order first seen
    predicted = []
    for key in keys:
        for attempt in range(3):
            kind = fault_for(config, key, attempt)
            predicted.append("ok" if kind is None else f"Transient:{kind}")
    assert [o if o == "ok" else ":".join(o.split(":")[:2]) for o in outcomes] == predicted


@pytest.mark.parametrize("rate", [0.0, 0.25, 0.75, 1.0])
def test_fault_rate_is_the_share_of_faulted_requests(rate: float) -> None:
    config = StubConfig(seed=1, fault_rate=rate)
    hits = sum(fault_for(config, f"{i:016x}", 0) is not None for i in range(4000))
    assert abs(hits / 4000 - rate) < 0.03
    kinds = {fault_for(config, f"{i:016x}", 1) for i in range(4000)} - {None}
    assert kinds == (set(config.faults) if rate > 0 else set())
