"""A prompt matrix's variant in a model string (`MODEL#prompt=B,lang=zh`): read back as written,
never mistaken in a model string that merely holds a '#', and invisible to the provider (which
is made from the model alone, `+calculator` included)."""

from __future__ import annotations

import pytest

from proctor.providers.registry import bare_model, split_variant, variant_model, with_calculator


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai/gpt-4o#prompt=B", ("openai/gpt-4o", "B", None)),
        ("m@http://h/v1#prompt=few-shot,lang=zh", ("m@http://h/v1", "few-shot", "zh")),
        ("m+calculator#lang=zh", ("m+calculator", None, "zh")),
        ("fake/const:#1", ("fake/const:#1", None, None)),
        ("m#colour=red", ("m#colour=red", None, None)),
        ("m#prompt=", ("m#prompt=", None, None)),
    ],
)
def test_split_variant(model: str, expected: tuple[str, str | None, str | None]) -> None:
    assert split_variant(model) == expected


def test_a_variant_reads_back_and_keeps_the_calculator() -> None:
    model = variant_model("m+calculator", "A", "zh")
    assert model == "m+calculator#prompt=A,lang=zh"
    assert split_variant(model) == ("m+calculator", "A", "zh")
    assert with_calculator(model) and bare_model(model) == "m"
    assert variant_model("m", None, None) == "m"
