from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from proctor.types import GradedItem, Outcome, Record, Sample, Score, Usage

MakeItem = Callable[..., GradedItem]


@pytest.fixture
def make_item() -> MakeItem:
    counter = itertools.count()

    def make(
        model: str,
        outcome: Outcome,
        *,
        category: str = "integer",
        difficulty: str = "easy",
        format_ok: bool = True,
        attempts: int = 1,
        latency_s: float = 1.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> GradedItem:
        sample = Sample(
            id=f"s{next(counter)}",
            input="1 + 1",
            target="2",
            category=category,
            difficulty=difficulty,
        )
        failed = outcome == "call_failed"
        record = Record(
            run_id="run-1",
            model=model,
            sample_id=sample.id,
            status="call_failed" if failed else "ok",
            text="" if failed else "Final answer: 2",
            finish_reason="unknown" if failed else "stop",
            usage=Usage(0, 0) if failed else Usage(prompt_tokens, completion_tokens),
            latency_s=latency_s,
            attempts=attempts,
            prompt_variant="bare",
            lang="en",
            error="timeout" if failed else "",
        )
        score = Score(outcome=outcome, rule="numeric", explanation="", format_ok=format_ok)
        return GradedItem(sample=sample, record=record, score=score)

    return make
