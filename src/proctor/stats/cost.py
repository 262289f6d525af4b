"""What a run cost: tokens × the price table.

Prices are US dollars per million tokens. The built-in table holds only models that cost nothing
to run here; add paid models from a TOML file (`--prices FILE` or $PROCTOR_PRICES):

    [models."openai/gpt-4o"]
    input_per_mtok = 2.50
    output_per_mtok = 10.00

    [models."openai-compat/*"]        # glob patterns are allowed; the most specific match wins
    input_per_mtok = 0
    output_per_mtok = 0

A model with no price shows its tokens and "no price" — never a made-up cost.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from proctor.errors import ConfigError
from proctor.untrusted import Refused, loads_toml_bounded, read_input_file


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        spent = prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok
        return spent / 1e6


BUILTIN_PRICES: dict[str, Price] = {
    "local": Price(0.0, 0.0),
    "local/*": Price(0.0, 0.0),
    "fake/*": Price(0.0, 0.0),
}


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, Price]

    def price_for(self, model: str) -> Price | None:
        """Exact name first, then the longest matching glob pattern."""
        if model in self.prices:
            return self.prices[model]
        matches = [p for p in self.prices if fnmatch.fnmatchcase(model, p)]
        if not matches:
            return None
        return self.prices[max(matches, key=len)]

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.price_for(model)
        return None if price is None else price.cost(prompt_tokens, completion_tokens)


def load_price_table(path: Path | None) -> PriceTable:
    """The built-in table, extended (and overridden) by the user's TOML file."""
    prices = dict(BUILTIN_PRICES)
    if path is None:
        return PriceTable(prices)
    try:
        data = loads_toml_bounded(read_input_file(path, max_bytes=1 << 20).decode("utf-8-sig"))
    except Refused as e:
        raise ConfigError(f"{path}: cannot read the price table: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from e
    models = data.get("models")
    if not isinstance(models, dict):
        raise ConfigError(f'{path}: expected a [models."NAME"] table per model')
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: models.{name!r} must be a table")
        values: list[float] = []
        for field in ("input_per_mtok", "output_per_mtok"):
            value = entry.get(field)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(
                    f"{path}: models.{name!r} field '{field}': expected a number ≥ 0, got {value!r}"
                )
            values.append(float(value))
        prices[name] = Price(values[0], values[1])
    return PriceTable(prices)
