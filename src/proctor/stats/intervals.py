"""Confidence intervals: Wilson for a proportion, cluster-robust for grouped items."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from statistics import NormalDist


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for `successes` out of `n`; (0.0, 1.0) when there are no trials.

    Wilson rather than the normal approximation because it stays inside [0, 1] and behaves at
    0 % and 100 %, which small test sets hit often.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    # At 0 and n the bounds are exactly 0 and 1; say so rather than leave rounding dust.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def normal_quantile(confidence: float) -> float:
    """z such that a standard normal lies within ±z with probability `confidence`."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def clustered_mean_interval(
    values: Sequence[float], clusters: Sequence[Hashable], confidence: float = 0.95
) -> tuple[float, float]:
    """Normal interval of the mean with a cluster-robust standard error.

    For items that come in groups (questions on one passage, the repeats of one question), the
    errors inside a group are not independent and the plain interval is too narrow. With x̄ the
    mean of the n values and C clusters,
        SE² = C / (C − 1) · Σ_c (Σ_{i∈c} (x_i − x̄))² / n²
    (the sandwich estimator with the usual small-sample factor). With one item per cluster this
    is the ordinary standard error of the mean. Needs at least two clusters.
    """
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} values but {len(clusters)} cluster labels")
    z = normal_quantile(confidence)
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    residuals: dict[Hashable, float] = {}
    for value, label in zip(values, clusters, strict=True):
        residuals[label] = residuals.get(label, 0.0) + (value - mean)
    c = len(residuals)
    if c < 2:
        raise ValueError("a clustered interval needs at least two clusters")
    variance = c / (c - 1) * math.fsum(r * r for r in residuals.values()) / (n * n)
    half = z * math.sqrt(variance)
    return (mean - half, mean + half)


def clustered_wilson_interval(
    outcomes: Sequence[bool | int | float], clusters: Sequence[Hashable], confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson interval of a proportion whose items come in groups, on the effective sample size.

    n_eff = n / deff, with the design effect deff = SE²_clustered / (p(1 − p)/n) (see
    `clustered_mean_interval`), held between 1 and n / C: never more evidence than n independent
    items, never less than one item per cluster. At p = 0 or 1 the design effect cannot be
    estimated and n_eff = C, the cautious end. Unlike the normal interval it stays inside [0, 1]
    and does not collapse to a point at 0 % or 100 %.
    """
    n = len(outcomes)
    if n != len(clusters):
        raise ValueError(f"{n} outcomes but {len(clusters)} cluster labels")
    if n == 0:
        return (0.0, 1.0)
    values = [float(v) for v in outcomes]
    if any(v not in (0.0, 1.0) for v in values):
        raise ValueError("outcomes must be 0 or 1")
    c = len(set(clusters))
    p = math.fsum(values) / n
    n_eff = float(c)
    if 0.0 < p < 1.0 and c >= 2:
        low, high = clustered_mean_interval(values, clusters, confidence)
        se = (high - low) / (2.0 * normal_quantile(confidence))
        deff = se * se / (p * (1.0 - p) / n)
        n_eff = min(float(n), max(float(c), n / deff)) if deff > 0 else float(n)
    return _wilson(p, n_eff, normal_quantile(confidence))


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    high = 1.0 if p == 1.0 else min(1.0, centre + half)
    return (low, high)
