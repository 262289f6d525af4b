"""A matrix's variant in a model string (`MODEL#prompt=B,lang=zh,temperature=0.7`): read back
as written, never mistaken in a model string that merely holds a '#', and invisible to the
provider (which is made from the model alone, `+calculator` included)."""

from __future__ import annotations

import pytest

from proctor._util.variants import (
    matrix_axes,
    matrix_words,
    split_variant,
    variant_model,
    variant_temperature,
)
from proctor.providers.registry import bare_model, with_calculator


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


def test_a_temperature_variant_reads_back_and_a_bad_one_is_no_variant() -> None:
    model = variant_model("m@http://h/v1", "B", None, 0.7)
    assert model == "m@http://h/v1#prompt=B,temperature=0.7"
    assert split_variant(model) == ("m@http://h/v1", "B", None)
    assert variant_temperature(model) == 0.7
    assert variant_temperature(variant_model("m", None, None, 0)) == 0.0
    assert variant_temperature("m#prompt=B") is None
    for odd in ("m#temperature=hot", "m#temperature=nan", "m#temperature=-1"):
        assert split_variant(odd) == (odd, None, None) and variant_temperature(odd) is None


def test_matrix_words_name_every_axis() -> None:
    models = [variant_model(m, p, None, t) for m in "ab" for p in "AB" for t in (0.0, 0.7)]
    assert matrix_words(models) == "8 variants of 2 models: prompt × temperature"
    assert matrix_axes(models) == {"prompt": ["A", "B"], "temperature": ["0.0", "0.7"]}
    assert matrix_words(["a", "b"]) is None
