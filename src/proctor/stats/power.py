"""Plan before paying: how many items a paired comparison needs to detect a difference, and what
asking them costs (`proctor run … --estimate --detect 2pp [--baseline RUN]`).

Items (Connor, 1987, as `paired.items_needed`): n = (z_{1−α/2} √ψ + z_power √(ψ − δ²))² / δ²,
with ψ the share of items on which the two models disagree. ψ comes from:

    a baseline run with two models   their observed discordance on the items both scored —
                                     the paired correlation, measured
    a baseline run with one model    its accuracy p, the two models taken as independent:
                                     ψ = 2p(1 − p) (more than correlated models disagree: a
                                     cautious count)
    nothing                          p = ½: ψ = ½, the most items any pair could need
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from proctor.stats.paired import DEFAULT_ALPHA, DEFAULT_POWER, items_needed


@dataclass(frozen=True)
class Discordance:
    psi: float
    source: str
    """How ψ was found, in words (printed beside the count)."""


def discordance(
    baseline: Mapping[str, Mapping[str, float]] | None, label: str = "the baseline"
) -> Discordance:
    """ψ from a baseline run's per-model item scores (model → sample id → score), as the module
    docstring says."""
    models = list(baseline or {})
    if baseline and len(models) >= 2:
        a, b = baseline[models[0]], baseline[models[1]]
        common = [sid for sid in a if sid in b]
        if common:
            psi = sum((a[s] - b[s]) ** 2 for s in common) / len(common)
            return Discordance(
                psi,
                f"{models[0]} and {models[1]} disagree on {psi * 100:.1f} % of {len(common):,} "
                f"items in {label}",
            )
    if baseline and models:
        scores = list(baseline[models[0]].values())
        if scores:
            p = sum(scores) / len(scores)
            return Discordance(
                2 * p * (1 - p),
                f"{models[0]} scored {p * 100:.1f} % in {label}; the two models taken as "
                "independent (correlated models need fewer items)",
            )
    return Discordance(0.5, "no baseline: the most any pair could need (ψ = ½)")


@dataclass(frozen=True)
class SizePlan:
    detect: float
    items: int
    discordance: Discordance
    alpha: float
    power: float
    available: int | None
    """Items the task has (None: generated, as many as asked)."""

    def sentence(self) -> str:
        short = ""
        if self.available is not None and self.items > self.available:
            short = f" — more than the {self.available:,} this task has"
        return (
            f"To detect a {self.detect * 100:g}-point difference with {self.power * 100:g} % "
            f"power (two-sided α = {self.alpha:g}), a paired comparison needs about "
            f"{self.items:,} items{short}; ψ from {self.discordance.source}."
        )


def size_plan(
    detect: float,
    found: Discordance,
    *,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    available: int | None = None,
) -> SizePlan:
    return SizePlan(
        detect,
        items_needed(detect, found.psi, alpha=alpha, power=power),
        found,
        alpha,
        power,
        available,
    )


def mean_tokens(per_item: Sequence[int]) -> float:
    return sum(per_item) / len(per_item) if per_item else 0.0
