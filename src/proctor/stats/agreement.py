"""Agreement between a judge and human verdicts: the share of items they agree on, Cohen's
kappa (agreement beyond what their base rates give by chance) with a seeded bootstrap interval,
each side's base rate, and the judge's agreement with itself over repeats.

    kappa = (p_o - p_e) / (1 - p_e),   p_o the observed agreement,
                                       p_e = sum over labels of p_judge(label) * p_human(label)

Kappa is undefined (None) when p_e is 1: both sides gave one and the same label to every item,
so there is nothing to tell apart from chance. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where it computes (see `proctor.stats.bootstrap`)
    import numpy as np

DEFAULT_RESAMPLES = 4_000


@dataclass(frozen=True)
class Agreement:
    n: int
    agree: int
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    judge_rate: float | None
    """Share of items the judge gave `positive` (pass, or "a" when pairwise)."""
    human_rate: float | None

    @property
    def share(self) -> float | None:
        return self.agree / self.n if self.n else None


def cohen_kappa(judge: Sequence[str], human: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters over the same items (labels of any kind)."""
    if len(judge) != len(human):
        raise ValueError("both raters must rate the same items")
    n = len(judge)
    if n == 0:
        return None
    p_o = sum(a == b for a, b in zip(judge, human, strict=True)) / n
    labels = set(judge) | set(human)
    p_e = sum((judge.count(c) / n) * (human.count(c) / n) for c in labels)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def _kappas(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Kappa of each row of two (resamples × n) integer arrays with labels 0..k-1; NaN where
    undefined."""
    import numpy as np

    p_o = (a == b).mean(axis=1)
    p_e = np.zeros(a.shape[0])
    for c in range(k):
        p_e += (a == c).mean(axis=1) * (b == c).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(p_e < 1.0, (p_o - p_e) / (1.0 - p_e), np.nan)
    return out


def kappa_interval(
    judge: Sequence[str],
    human: Sequence[str],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """A percentile bootstrap interval of kappa over items (seeded: same data, same interval);
    None when kappa is undefined or there are fewer than 2 items."""
    import numpy as np

    if len(judge) < 2 or cohen_kappa(judge, human) is None:
        return None
    codes = {c: i for i, c in enumerate(sorted(set(judge) | set(human)))}
    a = np.array([codes[x] for x in judge])
    b = np.array([codes[x] for x in human])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(resamples, len(a)))
    values = _kappas(a[idx], b[idx], len(codes))
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def agreement(pairs: Sequence[tuple[str, str]], positive: str, *, seed: int = 0) -> Agreement:
    """(judge label, human label) per item → agreement, kappa and its interval, base rates."""
    judge = [j for j, _ in pairs]
    human = [h for _, h in pairs]
    n = len(pairs)
    interval = kappa_interval(judge, human, seed=seed)
    return Agreement(
        n=n,
        agree=sum(j == h for j, h in pairs),
        kappa=cohen_kappa(judge, human),
        kappa_low=None if interval is None else interval[0],
        kappa_high=None if interval is None else interval[1],
        judge_rate=judge.count(positive) / n if n else None,
        human_rate=human.count(positive) / n if n else None,
    )


def self_consistency(repeats: Sequence[Sequence[str]]) -> tuple[float | None, int]:
    """Share of items whose repeated judge verdicts are all the same, over items judged at least
    twice; and how many such items there were."""
    judged = [r for r in repeats if len(r) >= 2]
    if not judged:
        return None, 0
    return sum(len(set(r)) == 1 for r in judged) / len(judged), len(judged)
