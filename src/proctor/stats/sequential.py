"""An anytime-valid confidence sequence for the paired difference of two models, so an A/B
comparison may stop as soon as the answer is known (`proctor run … --sequential --margin 1pp`).

Which: the normal-mixture (Robbins) confidence sequence for sub-Gaussian increments, in the
form of Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Annals of Statistics 49(2), 2021 (§3, the normal mixture boundary).
Each item gives d_i = b_i − a_i ∈ [−1, 1]; d_i − μ lies in an interval of length 2, so it is
1-sub-Gaussian (Hoeffding's lemma). With S_t = Σ_{i≤t} (d_i − μ) and mixing precision ρ,

    M_t = √(ρ / (t + ρ)) · exp(S_t² / (2 (t + ρ)))

is a nonnegative supermartingale, and by Ville's inequality P(∃ t: M_t ≥ 1/α) ≤ α. Hence, at
every t at once, with probability at least 1 − α,

    |mean_t(d) − μ| < √((t + ρ) · (log((t + ρ) / ρ) + 2 log(1/α))) / t.

The margin verdicts (`proctor.stats.margin.verdict_of`) read off these bounds stay wrong at most
α of the time however often one looks and whenever one stops (optional stopping), which a fixed-n
interval checked after every batch does not (`tests/stats/test_sequential_simulation.py`).
ρ is fixed before the first item, from the planned number of items (tightest near a tenth of it).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

DEFAULT_ALPHA = 0.05
METHOD = "normal-mixture confidence sequence (Robbins; Howard et al., Ann. Statist. 2021)"


def mixing_precision(planned: int) -> float:
    """ρ for a run of `planned` items: the boundary is tightest near t ≈ planned / 10."""
    return max(1.0, planned / 10.0)


def radius(t: ArrayLike, rho: float, alpha: float = DEFAULT_ALPHA) -> NDArray[np.float64]:
    """Half-width of the confidence sequence for the mean after t items (vectorised)."""
    if not 0.0 < alpha < 1.0 or rho <= 0:
        raise ValueError("alpha must be in (0, 1) and rho above 0")
    steps = np.asarray(t, dtype=np.float64)
    width: NDArray[np.float64] = (
        np.sqrt((steps + rho) * (np.log((steps + rho) / rho) + 2.0 * math.log(1.0 / alpha)))
        / steps
    )
    return width


def sequence_bounds(
    total: ArrayLike, t: ArrayLike, rho: float, alpha: float = DEFAULT_ALPHA
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(low, high) for μ from the running sum of d and the count t, clipped to [−1, 1]."""
    mean = np.asarray(total, dtype=np.float64) / np.asarray(t, dtype=np.float64)
    half = radius(t, rho, alpha)
    low: NDArray[np.float64] = np.maximum(-1.0, mean - half)
    high: NDArray[np.float64] = np.minimum(1.0, mean + half)
    return low, high
