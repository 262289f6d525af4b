"""The price table: exact names, globs (longest wins), built-ins, and bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.stats.cost import Price, load_price_table

TABLE = """
[models."openai/gpt-4o"]
input_per_mtok = 2.5
output_per_mtok = 10

[models."openai/*"]
input_per_mtok = 1
output_per_mtok = 2

[models."openai/gpt-4o*"]
input_per_mtok = 3
output_per_mtok = 4

[models."openai-compat/*"]
input_per_mtok = 0
output_per_mtok = 0

[models."fake/*"]
input_per_mtok = 7
output_per_mtok = 7
"""


@pytest.fixture
def table_file(tmp_path: Path) -> Path:
    p = tmp_path / "prices.toml"
    p.write_text(TABLE, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("model", "price"),
    [
        ("openai/gpt-4o", Price(2.5, 10.0)),  # exact beats every glob
        ("openai/gpt-4o-mini", Price(3.0, 4.0)),  # "openai/gpt-4o*" is longer than "openai/*"
        ("openai/o3", Price(1.0, 2.0)),
        ("openai-compat/q@http://127.0.0.1:1/v1", Price(0.0, 0.0)),
        ("local", Price(0.0, 0.0)),
        ("local/models/x.gguf", Price(0.0, 0.0)),
        ("fake/const:42", Price(7.0, 7.0)),  # the file overrides a built-in
        ("anthropic/claude", None),
        ("OPENAI/gpt-4o", None),  # case matters
    ],
)
def test_price_for(table_file: Path, model: str, price: Price | None) -> None:
    assert load_price_table(table_file).price_for(model) == price


@pytest.mark.parametrize("model", ["local", "local/a/b.gguf", "fake/const:hello"])
def test_builtins_are_free(model: str) -> None:
    table = load_price_table(None)
    assert table.cost(model, 10**6, 10**6) == 0.0


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o", "anthropic/claude", "openai-compat/m@http://127.0.0.1:1/v1"]
)
def test_unknown_model_has_no_price(model: str) -> None:
    table = load_price_table(None)
    assert table.price_for(model) is None
    assert table.cost(model, 100, 100) is None


def test_cost_arithmetic(table_file: Path) -> None:
    table = load_price_table(table_file)
    assert table.cost("openai/gpt-4o", 1_000_000, 500_000) == pytest.approx(2.5 + 5.0)
    assert table.cost("openai/gpt-4o", 0, 0) == 0.0
    assert Price(1.5, 3.0).cost(2000, 1000) == pytest.approx((2000 * 1.5 + 1000 * 3.0) / 1e6)


BAD: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "negative",
        '[models."m"]\ninput_per_mtok = -1\noutput_per_mtok = 1\n',
        ("input_per_mtok", "-1"),
    ),
    (
        "string",
        '[models."m"]\ninput_per_mtok = 1\noutput_per_mtok = "2"\n',
        ("output_per_mtok", "'2'"),
    ),
    ("missing", '[models."m"]\ninput_per_mtok = 1\n', ("output_per_mtok", "None")),
    ("bool", '[models."m"]\ninput_per_mtok = true\noutput_per_mtok = 1\n', ("input_per_mtok",)),
    ("not toml", "this is = = not toml [", ("not valid TOML",)),
    ("no models", '[prices."m"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n', ("models",)),
    ("models not a table", "models = 3\n", ("models",)),
    ("entry not a table", "[models]\nm = 3\n", ("'m'", "must be a table")),
]


@pytest.mark.parametrize(("name", "text", "needles"), BAD, ids=[b[0] for b in BAD])
def test_bad_file_names_file_and_field(
    tmp_path: Path, name: str, text: str, needles: tuple[str, ...]
) -> None:
    p = tmp_path / f"bad-{name.replace(' ', '_')}.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_price_table(p)
    message = str(info.value)
    assert str(p) in message
    for needle in needles:
        assert needle in message, message


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    p = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"nope\.toml"):
        load_price_table(p)
