"""Graded items → one score per item and model, the unit every paired statistic works on."""

from __future__ import annotations

from collections.abc import Iterable

from proctor.stats.metrics import NOT_SCORED
from proctor.types import GradedItem


def item_scores(items: Iterable[GradedItem], model: str | None = None) -> dict[str, float]:
    """Sample id → share of the model's scored replies to it that are correct (1.0 or 0.0 with
    one reply per item), in order of first appearance.

    Failed calls and unscored replies are left out; an item with no scored reply is left out.
    With `model` None every item counts (the items of a single model).
    """
    tally: dict[str, list[int]] = {}
    for item in items:
        if model is not None and item.record.model != model:
            continue
        if item.score.outcome in NOT_SCORED:
            continue
        counts = tally.setdefault(item.sample.id, [0, 0])
        counts[0] += item.score.outcome == "correct"
        counts[1] += 1
    return {sample_id: correct / n for sample_id, (correct, n) in tally.items()}


def scores_by_model(items: Iterable[GradedItem]) -> dict[str, dict[str, float]]:
    """Model → `item_scores` of its items, models in order of first appearance."""
    grouped: dict[str, list[GradedItem]] = {}
    for item in items:
        grouped.setdefault(item.record.model, []).append(item)
    return {model: item_scores(group) for model, group in grouped.items()}
