"""`proctor.runs.costs`: the estimate's total is at most the sum of its models' costs, and
unknown (None) as soon as one model has no price: never a total that leaves a model out."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.costs import Estimate, ModelEstimate, read_prices


def _model(name: str, cost: float | None) -> ModelEstimate:
    return ModelEstimate(name, 2, 10, 20, cost, 0, None)


def test_a_model_without_a_price_makes_the_total_unknown() -> None:
    assert Estimate((_model("a", 0.5), _model("b", None)), batch=False).cost is None
    assert Estimate((_model("a", None),), batch=False).cost is None


def test_the_total_is_the_sum_of_the_models_costs() -> None:
    assert Estimate((_model("a", 0.25), _model("b", 0.5)), batch=True).cost == 0.75
    assert Estimate((), batch=False).cost == 0


def test_a_price_file_that_is_not_one_is_refused_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text('[models."x/y"]\ninput = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"prices\.toml"):
        read_prices(bad)
    assert read_prices(None).cost("fake/const:1", 10, 10) == 0.0
