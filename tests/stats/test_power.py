"""Where ψ comes from when sizing a paired comparison."""

from __future__ import annotations

import pytest

from proctor.stats.paired import items_needed
from proctor.stats.power import discordance, size_plan


def test_two_models_give_their_measured_disagreement() -> None:
    found = discordance({"a": {"1": 1.0, "2": 0.0, "3": 1.0, "4": 1.0},
                         "b": {"1": 1.0, "2": 1.0, "3": 1.0, "4": 0.0}})  # fmt: skip
    assert found.psi == pytest.approx(0.5)
    assert "disagree on 50.0 % of 4 items" in found.source


def test_correlated_models_need_fewer_items_than_the_cautious_count() -> None:
    a = {str(i): float(i % 2) for i in range(100)}
    b = {str(i): float(i % 2 if i > 9 else 1) for i in range(100)}  # 5 of 100 differ
    close = discordance({"a": a, "b": b})
    alone = discordance({"a": {str(i): float(i % 2) for i in range(100)}})
    assert alone.psi == pytest.approx(0.5)  # p = ½, independent
    assert size_plan(0.02, close).items < size_plan(0.02, alone).items
    assert size_plan(0.02, discordance(None)).items == items_needed(0.02, 0.5)


def test_more_than_the_task_has_is_said() -> None:
    plan = size_plan(0.02, discordance(None), available=500)
    assert "more than the 500 this task has" in plan.sentence()
