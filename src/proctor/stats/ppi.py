"""A judge's measured accuracy corrected by human labels: prediction-powered inference (PPI;
Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered inference", Science 382,
2023).

The judge passes or fails every reply (f ∈ {0, 1}); humans labelled a subset (Y ∈ {0, 1}). The
judge's own pass rate is biased by however much it passes too readily (or too rarely). PPI
keeps the judge's many verdicts and removes their bias with the labelled subset:

    θ̂ = mean_unlabelled(f) − mean_labelled(f − Y)                 (the rectifier)
    SE² = var_unlabelled(f) / N + var_labelled(f − Y) / n
    interval θ̂ ± z · SE, clipped to [0, 1]

It is valid whatever the judge's bias (the rectifier is unbiased for it) and narrower than the
labels alone when the judge tracks the humans. `tests/stats/test_ppi_simulation.py` checks its
coverage with a judge biased by +10 points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from proctor.stats.intervals import normal_quantile


@dataclass(frozen=True)
class Corrected:
    """The judge's raw pass rate and the PPI-corrected one, each with its interval."""

    raw: float
    raw_low: float
    raw_high: float
    estimate: float
    low: float
    high: float
    labelled: int
    unlabelled: int
    confidence: float = 0.95


def ppi_mean_bounds(
    unlabelled: ArrayLike, judged: ArrayLike, human: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(estimate, low, high) along the last axis: `unlabelled` the judge's verdicts on the
    replies humans did not label, `judged` and `human` the two verdicts on those they did.
    Vectorised: leading axes are separate experiments (the simulations)."""
    f_u = np.asarray(unlabelled, dtype=np.float64)
    rect = np.asarray(judged, dtype=np.float64) - np.asarray(human, dtype=np.float64)
    big_n, n = f_u.shape[-1], rect.shape[-1]
    estimate = f_u.mean(axis=-1) - rect.mean(axis=-1)
    variance = f_u.var(axis=-1, ddof=1) / big_n + rect.var(axis=-1, ddof=1) / n
    half = normal_quantile(confidence) * np.sqrt(variance)
    low: NDArray[np.float64] = np.clip(estimate - half, 0.0, 1.0)
    high: NDArray[np.float64] = np.clip(estimate + half, 0.0, 1.0)
    return estimate, low, high


def corrected_accuracy(
    unlabelled: Sequence[bool],
    labelled: Sequence[tuple[bool, bool]],
    confidence: float = 0.95,
) -> Corrected | None:
    """PPI on the judge's verdicts (`unlabelled`: replies without a human label) and the
    (judge, human) pairs on the labelled ones; None with under two of either."""
    if len(unlabelled) < 2 or len(labelled) < 2:
        return None
    judged = [float(j) for j, _ in labelled]
    human = [float(h) for _, h in labelled]
    every = [float(v) for v in unlabelled] + judged
    est, low, high = ppi_mean_bounds([float(v) for v in unlabelled], judged, human, confidence)
    raw = sum(every) / len(every)
    z = normal_quantile(confidence)
    raw_half = z * float(np.sqrt(raw * (1 - raw) / len(every)))
    return Corrected(
        raw, max(0.0, raw - raw_half), min(1.0, raw + raw_half),
        float(est), float(low), float(high), len(labelled), len(unlabelled), confidence,
    )  # fmt: skip
