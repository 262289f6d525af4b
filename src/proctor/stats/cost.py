"""What a run cost: tokens × the price table.

Prices are US dollars per million tokens. The built-in table holds only models that cost nothing
to run here; add paid models from a TOML file (`--prices FILE` or $PROCTOR_PRICES):

    [models."openai/gpt-4o"]
    input_per_mtok = 2.50
    output_per_mtok = 10.00

    batch_input_per_mtok = 1.25       # optional: the batch price (default: half the list)
    batch_output_per_mtok = 5.00

    [models."openai-compat/*"]        # glob patterns are allowed; the most specific match wins
    input_per_mtok = 0
    output_per_mtok = 0

A model with no price shows its tokens and "no price" — never a made-up cost.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from proctor._util.untrusted import Refused, loads_toml_bounded, read_input_file
from proctor.errors import ConfigError
from proctor.types import GradedItem

BATCH_SHARE = 0.5
"""The batch price as a share of the list price when a table gives none: OpenAI's Batch API and
Anthropic's Message Batches both bill half."""


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float
    batch_input_per_mtok: float | None = None
    batch_output_per_mtok: float | None = None
    """The batch prices; None: `BATCH_SHARE` of the list price."""

    def cost(self, prompt_tokens: int, completion_tokens: int, *, batch: bool = False) -> float:
        if batch:
            per_in = self.batch_input_per_mtok
            per_out = self.batch_output_per_mtok
            per_in = self.input_per_mtok * BATCH_SHARE if per_in is None else per_in
            per_out = self.output_per_mtok * BATCH_SHARE if per_out is None else per_out
        else:
            per_in, per_out = self.input_per_mtok, self.output_per_mtok
        return (prompt_tokens * per_in + completion_tokens * per_out) / 1e6


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

    def cost(
        self, model: str, prompt_tokens: int, completion_tokens: int, *, batch: bool = False
    ) -> float | None:
        price = self.price_for(model)
        return None if price is None else price.cost(prompt_tokens, completion_tokens, batch=batch)


_BATCH_FIELDS = ("batch_input_per_mtok", "batch_output_per_mtok")


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
        values: list[float | None] = []
        for field in ("input_per_mtok", "output_per_mtok", *_BATCH_FIELDS):
            value = entry.get(field)
            if value is None and field in _BATCH_FIELDS:
                values.append(None)
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(
                    f"{path}: models.{name!r} field '{field}': expected a number ≥ 0, got {value!r}"
                )
            values.append(float(value))
        list_in, list_out, batch_in, batch_out = values
        assert list_in is not None and list_out is not None
        prices[name] = Price(list_in, list_out, batch_in, batch_out)
    return PriceTable(prices)


@dataclass(frozen=True)
class ModelLedger:
    """What one model's answers in a run cost, and what reusing cached answers saved.

    `asked` counts the answers this run called for (failed calls included: they may have cost
    tokens); `reused` those taken from the response cache, priced at what asking them again in
    this run would cost — money not spent: the list price, or the batch price when the run asked
    its answers in batches (`saved_at_batch_price`)."""

    model: str
    asked: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    batched: int
    """Of `asked`, the answers asked in a provider batch (priced at the batch price)."""
    reused: int
    reused_prompt_tokens: int
    reused_completion_tokens: int
    saved: float | None
    saved_at_batch_price: bool
    sources: tuple[str, ...]
    """The runs the reused answers came from, first seen first."""
    batch_prompt_tokens: int = 0
    """Of `prompt_tokens`, those asked in batches (like `batch_completion_tokens`)."""
    batch_completion_tokens: int = 0


def ledger(
    items: Sequence[GradedItem], table: PriceTable, models: Sequence[str] = ()
) -> list[ModelLedger]:
    """Per model (in `models` order, then first appearance), spent and saved tokens and money."""
    tallies: dict[str, LedgerTally] = {m: LedgerTally() for m in models}
    for item in items:
        model = item.record.model
        (tallies.get(model) or tallies.setdefault(model, LedgerTally())).add(item)
    return [t.result(m, table) for m, t in tallies.items()]


class LedgerTally:
    """One model's `ModelLedger`, counted one answer at a time."""

    def __init__(self) -> None:
        # asked live (n, prompt, completion) | reused from the cache | asked in batches
        self.t = [0] * 9
        self.sources: dict[str, None] = {}

    def add(self, item: GradedItem) -> None:
        r, t = item.record, self.t
        at = 3 if r.cached_from else 6 if r.batch_id else 0
        t[at] += 1
        t[at + 1] += r.usage.prompt_tokens or 0  # an unknown count: the sums are lower bounds
        t[at + 2] += r.usage.completion_tokens or 0
        if r.cached_from:
            self.sources[r.cached_from] = None

    def result(self, m: str, table: PriceTable) -> ModelLedger:
        t = self.t
        return ModelLedger(
            model=m,
            asked=t[0] + t[6],
            prompt_tokens=t[1] + t[7],
            completion_tokens=t[2] + t[8],
            cost=spent_cost(table, m, (t[1], t[2]), (t[7], t[8])),
            batched=t[6],
            reused=t[3],
            reused_prompt_tokens=t[4],
            reused_completion_tokens=t[5],
            saved=table.cost(m, t[4], t[5], batch=t[6] > 0),
            saved_at_batch_price=t[6] > 0,
            sources=tuple(self.sources),
            batch_prompt_tokens=t[7],
            batch_completion_tokens=t[8],
        )


def spent_cost(
    table: PriceTable, model: str, live: tuple[int, int], batched: tuple[int, int]
) -> float | None:
    """What `model` cost: its (prompt, completion) tokens asked live at the table's price and
    those asked in batches at the batch price; None when the table has no price for it."""
    return _sum(table.cost(model, *live), table.cost(model, *batched, batch=True))


def _sum(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b
