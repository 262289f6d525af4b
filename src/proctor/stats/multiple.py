"""Many models ranked at once: paired comparisons with Holm's correction.

Comparing 12 models pairwise at α = 0.05 makes one false "better" likely by chance alone. Holm's
step-down procedure keeps the chance of any false claim in the family at α or below, and is never
less powerful than Bonferroni.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations, pairwise
from typing import Literal

from proctor.stats.paired import (
    DEFAULT_TEST,
    PairedComparison,
    PairedTest,
    compare_paired,
    with_adjusted_p,
)

Pairs = Literal["adjacent", "all"]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order.

    Sort the m p-values ascending p_(1) ≤ … ≤ p_(m); the adjusted value of p_(i) is
    max_{j ≤ i} min(1, (m − j + 1) · p_(j)). Reject where the adjusted value is below α.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def ranked_comparisons(
    scores: Mapping[str, Mapping[str, float]],
    order: Sequence[str],
    *,
    pairs: Pairs = "adjacent",
    test: PairedTest = DEFAULT_TEST,
) -> list[PairedComparison]:
    """Paired comparisons between ranked models, Holm-adjusted as one family.

    `scores[model][item id]` is the model's score on the item in [0, 1]; each pair is compared on
    the items both have. `order` is the ranking, best first; "adjacent" compares each model with
    the next one down (is #1 really ahead of #2?), "all" every pair. A is always the higher-ranked
    model of a pair. With a single pair the p-value is left unadjusted.
    """
    chosen = list(pairwise(order)) if pairs == "adjacent" else list(combinations(order, 2))
    results: list[PairedComparison] = []
    for a, b in chosen:
        left, right = scores.get(a, {}), scores.get(b, {})
        common = [item for item in left if item in right]
        results.append(
            compare_paired(
                [left[item] for item in common],
                [right[item] for item in common],
                names=(a, b),
                test=test,
            )
        )
    return holm_adjusted(results)


def holm_adjusted(results: Sequence[PairedComparison]) -> list[PairedComparison]:
    """The comparisons with their Holm-adjusted p-values, as one family; a family of one is
    left unadjusted."""
    if len(results) < 2:
        return list(results)  # a family of one needs no correction
    adjusted = holm([c.p_value for c in results])
    return [with_adjusted_p(c, p) for c, p in zip(results, adjusted, strict=True)]
