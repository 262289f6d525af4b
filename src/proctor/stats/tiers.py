"""The seed's accuracy tiers: what an accuracy means for using a model without tools.

Defined for arithmetic without a calculator (the seed's scale): a task names its scale in
`Task.tiers`, and a task without one shows no tier."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    name: str
    min_accuracy: float
    label: str


TIERS: tuple[Tier, ...] = (
    Tier("A", 0.89, "can carry numeric work without tools"),
    Tier("B", 0.70, "needs a tool for anything important"),
    Tier("C", 0.50, "weak: no precise calculation"),
    Tier("D", 0.0, "unreliable at arithmetic"),
)
"""Highest first; a model gets the first tier whose `min_accuracy` its accuracy reaches."""

NO_TIER = Tier("-", 0.0, "nothing scored")


def tier_for(accuracy: float | None, tiers: Sequence[Tier] = TIERS) -> Tier:
    """The tier of an accuracy in [0, 1] on the scale `tiers`; `NO_TIER` when nothing was
    scored."""
    if accuracy is None:
        return NO_TIER
    for tier in tiers:
        if accuracy >= tier.min_accuracy:
            return tier
    return tiers[-1]
