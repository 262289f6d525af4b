from __future__ import annotations

import pytest

from proctor.stats import summarize
from proctor.stats.size import model_size, size_trend

from .conftest import MakeItem


@pytest.mark.parametrize(
    ("model", "size"),
    [
        ("qwen2.5-7b", 7e9),
        ("SmolLM2-135M", 1.35e8),
        ("local", 1.35e8),
        ("Qwen2.5-0.5B-Instruct", 5e8),
        ("llama-3.1-8b-instruct", 8e9),
        ("llama3.1:70b", 7e10),
        ("mixtral-8x7b", 5.6e10),
        ("openai-compat/qwen2.5-72b-instruct@http://127.0.0.1:8000/v1", 7.2e10),
        ("local/models/qwen2.5-1.5b-instruct-q4_k_m.gguf", 1.5e9),
        ("DeepSeek-V3-671B", 6.71e11),
        ("gpt-4o", None),
        ("claude-3.5-sonnet", None),
        ("phi-3-mini-4k-instruct", None),
        ("fake/const:42", None),
    ],
)
def test_size_from_the_name(model: str, size: float | None) -> None:
    assert model_size(model) == size


def test_a_table_wins_over_the_name() -> None:
    table = {"gpt-4o": 2e11, "Qwen2.5-7B": 7.6e9}
    assert model_size("openai/gpt-4o", table) == 2e11
    assert model_size("qwen2.5-7b", table) == 7.6e9


def test_trend(make_item: MakeItem) -> None:
    items = [make_item("qwen2.5-0.5b", "correct")] + [make_item("qwen2.5-0.5b", "wrong")] * 3
    items += [make_item("qwen2.5-7b", "correct")] * 2 + [make_item("qwen2.5-7b", "wrong")] * 2
    items += [make_item("qwen2.5-72b", "correct")] * 3 + [make_item("qwen2.5-72b", "wrong")]
    items += [make_item("gpt-4o", "correct")]
    trend = size_trend(summarize(items).models)
    assert [p.model for p in trend.points] == ["qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-72b"]
    assert trend.unknown == ("gpt-4o",)
    assert trend.spearman == pytest.approx(1.0)
    assert trend.slope_per_decade is not None and trend.slope_per_decade > 0


def test_trend_needs_two_sizes(make_item: MakeItem) -> None:
    trend = size_trend(summarize([make_item("qwen2.5-7b", "correct")]).models)
    assert trend.slope_per_decade is None and trend.spearman is None
