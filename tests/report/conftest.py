from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import pytest

from proctor.stats import summarize
from proctor.types import (
    GenerationParams,
    GradedItem,
    Outcome,
    Record,
    RunInfo,
    Sample,
    Score,
    Usage,
)
from support.browser import browser_fixture
from support.hostile import hostile_run
from support.run_stats import Run

TRICKY_RESPONSE = 'He said, "12 × 3 = 36",\r\nthen: 最终答案：36\nand a | pipe, "quoted" "" twice'

RULES = {
    "final_answer_line": "The answer is read from the last 'Final answer:' line.",
    "numeric": "The number must equal the target exactly.",
}


def _item(
    model: str,
    sample_id: str,
    outcome: Outcome,
    *,
    text: str = "Final answer: 36",
    input_: str = "12 * 3",
    target: str = "36",
    category: str = "integer",
    difficulty: str = "easy",
    rule: str = "final_answer_line+numeric",
    extracted: str | None = "36",
    attempts: int = 1,
) -> GradedItem:
    failed = outcome == "call_failed"
    return GradedItem(
        sample=Sample(
            id=sample_id,
            input=input_,
            target=target,
            category=category,
            difficulty=difficulty,
        ),
        record=Record(
            run_id="2026-05-01T10-00-00-abc123",
            model=model,
            sample_id=sample_id,
            status="call_failed" if failed else "ok",
            text=text,
            finish_reason="unknown" if failed else "stop",
            usage=Usage(0, 0) if failed else Usage(40, 12),
            latency_s=0.25,
            attempts=attempts,
            prompt_variant="bare",
            lang="zh",
            error="Transient: read timeout" if failed else "",
        ),
        score=Score(
            outcome=outcome,
            rule=rule,
            explanation=f"graded {outcome}",
            extracted=None if failed else extracted,
            normalized=None if failed else extracted,
            format_ok=outcome == "correct",
        ),
    )


def build_run() -> Run:
    strong, weak = "openai/gpt-4o", "local/smol|lm"
    items = [
        _item(strong, "int_0", "correct", text=TRICKY_RESPONSE),
        _item(strong, "int_1", "correct", difficulty="medium"),
        _item(strong, "dec_0", "correct", category="decimal", difficulty="hard"),
        _item(strong, "dec_1", "wrong", category="decimal", extracted="3.5", attempts=3),
        _item(weak, "int_0", "wrong", extracted="35", input_="a | b\nsecond line"),
        _item(weak, "int_1", "truncated", extracted=None, rule="unknown_rule"),
        _item(weak, "dec_0", "call_failed", category="decimal", text="", rule="call"),
        _item(weak, "dec_1", "correct", category="decimal"),
    ]
    items += [_item(weak, f"x_{i}", "wrong", category="mixed", rule="numeric") for i in range(6)]
    info = RunInfo(
        run_id="2026-05-01T10-00-00-abc123",
        task="arithmetic",
        models=(strong, weak),
        dataset_hash="sha256:0123456789abcdef",
        dataset_size=10,
        generator_version="arith-1.2.0",
        prompt_variant="bare",
        lang="zh",
        created_at="2026-05-01T10:00:00Z",
        params=GenerationParams(temperature=0.0, max_tokens=512, timeout_s=30.0, seed=7),
        seed=42,
    )
    return Run(info, items, summarize(items, models=info.models), dict(RULES))


@pytest.fixture
def run() -> Run:
    return build_run()


CATEGORIES = ("integer", "decimal", "mixed", "fraction", "bigint")
DIFFICULTIES = ("easy", "medium", "hard")


def many_models(n: int) -> list[str]:
    """The models of a 50-model run against one local server."""
    return [f"openai-compat/m{i:02d}@http://127.0.0.1:18555/v1" for i in range(1, n + 1)]


@lru_cache(maxsize=4)
def build_many(n_models: int, n_items: int, task: str = "arithmetic") -> Run:
    """A run of many models over `n_items` samples each; model k gets 7·k answers wrong."""
    models = many_models(n_models)
    samples = [
        Sample(
            id=f"s{i}",
            input="1 + 1",
            target="2",
            category=CATEGORIES[i % len(CATEGORIES)],
            difficulty=DIFFICULTIES[i % len(DIFFICULTIES)],
        )
        for i in range(n_items)
    ]
    right = Score(outcome="correct", rule="numeric", explanation="", extracted="2", format_ok=True)
    wrong = Score(outcome="wrong", rule="numeric", explanation="", extracted="3", format_ok=True)
    items = []
    for k, model in enumerate(models):
        record = _item(model, "s0", "correct").record  # shared: metrics read only model and usage
        items += [
            GradedItem(sample=s, record=record, score=wrong if i < 7 * k else right)
            for i, s in enumerate(samples)
        ]
    info = RunInfo(
        run_id="20261130-000825-arithmetic-b9c705",
        task=task,
        models=tuple(models),
        dataset_hash="sha256:abc97b76d44ead3c",
        dataset_size=n_items,
        generator_version="arith-1",
        prompt_variant="B",
        lang="en",
        created_at="2026-11-30T00:08:25+00:00",
    )
    return Run(info, items, summarize(items, models=info.models), {})


# The HTML pages' fixtures: headless Chromium for the page tests, and a run that tries to break out
# of the page.


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    yield from browser_fixture()


@pytest.fixture
def hostile() -> Run:
    return hostile_run()
