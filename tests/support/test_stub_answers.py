"""The stub's answers: "correct" mode solves every kind of arithmetic question the generator
makes, through the real prompts (A and B, English and Chinese) and the real grader."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import httpx
import pytest

from proctor.datasets.arithmetic import CATEGORIES, generate
from proctor.prompts.arithmetic import build_prompt
from proctor.providers.openai_compat import OpenAICompatProvider
from proctor.score.numeric import grade
from proctor.types import Completion, GenerationParams, Message, Prompt, Sample
from support.stub import StubConfig, StubHandle, prompt_key
from support.stub.answers import find_question, off_by_one, solve

StartStub = Callable[..., StubHandle]
MakeProvider = Callable[[StubHandle], OpenAICompatProvider]

SAMPLES = generate(42, 50)
VARIANTS = [("A", "en"), ("A", "zh"), ("B", "en"), ("B", "zh")]


def _params(variant: str) -> GenerationParams:
    return GenerationParams(max_tokens=32 if variant == "A" else 256, timeout_s=10.0)


async def _ask_all(
    provider: OpenAICompatProvider, variant: str, lang: str
) -> list[tuple[Sample, Completion]]:
    async def one(sample: Sample) -> tuple[Sample, Completion]:
        prompt = build_prompt(sample, variant, lang)
        return sample, await provider.complete(prompt, _params(variant))

    return list(await asyncio.gather(*(one(s) for s in SAMPLES)))


def test_the_paper_covers_every_category() -> None:
    assert {s.category for s in SAMPLES} == set(CATEGORIES)
    assert {s.answer_type for s in SAMPLES} >= {"integer", "decimal", "fraction", "comparison"}


@pytest.mark.parametrize(("variant", "lang"), VARIANTS)
async def test_correct_mode_answers_every_category_correctly(
    variant: str, lang: str, start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(answer_mode="correct")
    answered = await _ask_all(make_provider(stub), variant, lang)
    for sample, completion in answered:
        score = grade(completion.text, completion.finish_reason, sample, variant=variant)
        assert score.outcome == "correct", (sample.id, sample.input, completion.text, score)
        assert completion.finish_reason == "stop"
        assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0
        assert completion.model == "proctor-stub"
    assert stub.stats().completions == len(SAMPLES)


async def test_wrong_mode_is_always_wrong(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub(answer_mode="wrong")
    for sample, completion in await _ask_all(make_provider(stub), "B", "en"):
        score = grade(completion.text, completion.finish_reason, sample, variant="B")
        assert score.outcome == "wrong", (sample.id, completion.text)


async def test_correct_rate_picks_the_same_prompts_every_time(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    def outcomes(answered: list[tuple[Sample, Completion]]) -> list[str]:
        return [grade(c.text, c.finish_reason, s, variant="B").outcome for s, c in answered]

    first, again = start_stub(correct_rate=0.5, seed=4), start_stub(correct_rate=0.5, seed=4)
    a = outcomes(await _ask_all(make_provider(first), "B", "en"))
    b = outcomes(await _ask_all(make_provider(again), "B", "en"))
    assert a == b
    assert set(a) == {"correct", "wrong"}
    assert 0.25 <= a.count("correct") / len(a) <= 0.75


async def test_echo_and_const_modes(start_stub: StartStub, make_provider: MakeProvider) -> None:
    prompt = build_prompt(SAMPLES[0], "B", "zh")
    echo = await make_provider(start_stub(answer_mode="echo")).complete(prompt, _params("B"))
    assert echo.text == prompt.messages[-1].content
    const = await make_provider(start_stub(answer_mode="const:hello")).complete(
        prompt, _params("B")
    )
    assert const.text == "hello"


async def test_max_tokens_cuts_the_reply(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    provider = make_provider(start_stub(answer_mode="echo"))
    prompt = Prompt((Message("user", "x" * 400),), "B", "en")
    completion = await provider.complete(prompt, GenerationParams(max_tokens=10, timeout_s=10.0))
    assert completion.finish_reason == "length"
    assert completion.usage.completion_tokens == 10
    assert len(completion.text) == 40


async def test_stats_count_prompts_by_key(
    start_stub: StartStub, make_provider: MakeProvider
) -> None:
    stub = start_stub()
    provider = make_provider(stub)
    prompt = build_prompt(SAMPLES[3], "B", "en")
    for _ in range(3):
        await provider.complete(prompt, _params("B"))
    await provider.complete(build_prompt(SAMPLES[4], "B", "en"), _params("B"))
    stats = stub.stats()
    assert stats.by_prompt[prompt_key(prompt.messages[-1].content)] == 3
    assert sorted(stats.by_body.values()) == [1, 3]
    assert (stats.requests, stats.completions, stats.faults) == (4, 4, {})


def test_counting_is_thread_safe(start_stub: StartStub) -> None:
    stub = start_stub()
    errors: list[BaseException] = []

    def hammer(worker: int) -> None:
        try:
            with httpx.Client(trust_env=False, timeout=10.0) as client:
                for i in range(40):
                    content = f"Problem: {worker} + {i % 5}"
                    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
                    r = client.post(f"{stub.base_url}/chat/completions", json=body)
                    assert r.status_code == 200
                    stub.stats()  # read while others write
        except BaseException as e:
            errors.append(e)

    workers = [threading.Thread(target=hammer, args=(w,)) for w in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert not errors
    stats = stub.stats()
    assert stats.requests == stats.completions == 240
    assert sum(stats.by_body.values()) == sum(stats.by_prompt.values()) == 240
    assert len(stats.by_prompt) == 30 and set(stats.by_prompt.values()) == {8}


def test_routes_and_bad_requests(start_stub: StartStub) -> None:
    stub = start_stub(model="m1")
    root = stub.base_url.removesuffix("/v1")
    with httpx.Client(trust_env=False, timeout=10.0) as client:
        assert client.get(f"{stub.base_url}/models").json()["data"][0]["id"] == "m1"
        assert client.get(f"{root}/nowhere").status_code == 404
        assert client.get(f"{stub.base_url}/chat/completions").status_code == 405
        bad = client.post(f"{stub.base_url}/chat/completions", content=b"{not json")
        assert bad.status_code == 400 and "not JSON" in bad.json()["error"]["message"]
        empty = client.post(f"{stub.base_url}/chat/completions", json={"messages": []})
        assert empty.status_code == 400
        parts = client.post(
            f"{stub.base_url}/chat/completions",
            json={
                "model": "m1",
                "messages": [{"role": "user", "content": [{"type": "text", "text": "2 × 21"}]}],
            },
        ).json()
        assert parts["choices"][0]["message"]["content"].endswith("Final answer: 42")
        assert parts["object"] == "chat.completion" and parts["usage"]["total_tokens"] > 0
        stats = client.get(f"{root}/stats").json()
    assert stats["requests"] == 3 and stats["completions"] == 1


def test_solver_pieces() -> None:
    assert find_question("rules\n\nProblem: 1 + 2") == "1 + 2"
    assert find_question("要求\n\n题目：1 + 2") == "1 + 2"
    assert find_question("rules\n\nmore rules\n\n3 × 4") == "3 × 4"
    assert solve("7 ÷ 2 (integer quotient, rounded down)") == "3"
    assert solve("Problem: 17 mod 5 (remainder of 17 ÷ 5)") == "2"
    assert solve("Problem: 10 ÷ 3 (round to 2 decimal places)") == "3.33"
    assert solve("Problem: 1/2 ÷ 3/4") == "2/3"
    assert solve("Compare 1/3 and 2/6: which sign goes between them, <, > or =?") == "="
    assert solve("Problem: what is the capital of France?") is None
    assert [off_by_one(a) for a in ("<", "41", "1.50", "-3/4")] == [">", "42", "2.50", "1/4"]


def test_config_is_checked() -> None:
    for bad in (
        {"answer_mode": "maybe"},
        {"correct_rate": 1.5},
        {"fault_rate": -0.1},
        {"faults": ("418",)},
        {"fault_rate": 0.5, "faults": ()},
        {"latency_s": -1.0},
    ):
        with pytest.raises(ValueError):
            StubConfig(**bad)

