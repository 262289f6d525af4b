"""The sequential rule keeps its error rate under optional stopping; naive repeated testing (a
fixed-n interval checked after every batch, stopping at the first verdict) does not.

10,000 simulated A/B comparisons of 2,000 paired 0/1 items each, looked at every 20 items
(100 looks), vectorised and seeded; the true difference sits exactly at −margin, where
NON-INFERIOR (or EQUIVALENT, SUPERIOR) is false. Rates are printed with 99 % Monte-Carlo
intervals (pytest -s)."""

from __future__ import annotations

import math

import numpy as np

from proctor.stats.intervals import wilson_interval
from proctor.stats.margin import paired_binary_bounds
from proctor.stats.sequential import mixing_precision, sequence_bounds

ALPHA = 0.05
RUNS, ITEMS, BATCH, MARGIN = 10_000, 2_000, 20, 0.02
LOOKS = np.arange(BATCH, ITEMS + 1, BATCH)


def paired(p_a: float, p_b: float, rho: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Running counts (only B right, only A right) at each look, for every simulated run."""
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    probs = [both, p_a - both, p_b - both, 1 - p_a - p_b + both]
    rng = np.random.default_rng(seed)
    cells = rng.choice(4, size=(RUNS, ITEMS), p=probs).astype(np.int8)
    b_only = np.cumsum(cells == 2, axis=1, dtype=np.int32)[:, LOOKS - 1]
    a_only = np.cumsum(cells == 1, axis=1, dtype=np.int32)[:, LOOKS - 1]
    return b_only, a_only


def rate(hits: int, label: str) -> float:
    low, high = wilson_interval(hits, RUNS, 0.99)
    print(f"{label}: {hits / RUNS:.4f} (99 % MC interval {low:.4f}–{high:.4f}) over {RUNS:,}")
    return hits / RUNS


def accepted_ever(low: np.ndarray) -> int:
    """Runs that at some look had the lower bound above −margin (and stopped there, wrongly)."""
    return int(np.count_nonzero((low > -MARGIN).any(axis=1)))


def test_optional_stopping_keeps_the_confidence_sequence_under_alpha() -> None:
    b_only, a_only = paired(0.80, 0.80 - MARGIN, 0.5, seed=11)
    low, _ = sequence_bounds(b_only - a_only, LOOKS, mixing_precision(ITEMS), ALPHA)
    assert rate(accepted_ever(low), "sequential: wrongly accepted at δ = −m") <= ALPHA


def test_naive_repeated_testing_exceeds_alpha() -> None:
    b_only, a_only = paired(0.80, 0.80 - MARGIN, 0.5, seed=11)
    low, _, _ = paired_binary_bounds(b_only, a_only, LOOKS)
    wrong = rate(accepted_ever(low), "naive, every batch: wrongly accepted at δ = −m")
    assert wrong > ALPHA
    once = int(np.count_nonzero(low[:, -1] > -MARGIN))
    assert rate(once, "naive, one look at the end") <= ALPHA  # the same interval, looked at once


def test_the_sequence_covers_at_every_look_at_once() -> None:
    b_only, a_only = paired(0.70, 0.75, 0.4, seed=12)
    low, high = sequence_bounds(b_only - a_only, LOOKS, mixing_precision(ITEMS), ALPHA)
    missed = int(np.count_nonzero(((low > 0.05) | (high < 0.05)).any(axis=1)))
    assert rate(missed, "sequence misses the truth at some look") <= ALPHA


def test_a_clear_difference_stops_early() -> None:
    """A 30-point gain is decided SUPERIOR after well under half the items in nearly every run."""
    b_only, a_only = paired(0.55, 0.85, 0.3, seed=13)
    low, _ = sequence_bounds(b_only - a_only, LOOKS, mixing_precision(ITEMS), ALPHA)
    decided = (low > 0).argmax(axis=1)
    assert np.all((low > 0).any(axis=1))
    assert np.median(LOOKS[decided]) < ITEMS / 4
