"""Pure: stated confidences and right/wrong answers → how well the confidence can be trusted.

- Brier score: the mean of (confidence − correct)², 0 best, 1 worst.
- Expected calibration error (ECE): confidences fall into `bins` equal-width bins over [0, 1]
  (each bin [lo, hi), the last one closed so that 1.0 counts); ECE is the sum over non-empty bins
  of (items in bin / all items) × |accuracy in bin − mean confidence in bin|.
- Reliability bins: the same bins as data (edges, count, mean confidence, accuracy), for a
  reliability diagram: x = mean confidence, y = accuracy, one point (or bar) per non-empty bin,
  against the diagonal y = x; a bin below the diagonal is over-confident.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.errors import ConfigError


@dataclass(frozen=True)
class ReliabilityBin:
    lower: float
    upper: float
    count: int
    mean_confidence: float | None
    """None for an empty bin."""
    accuracy: float | None

    @property
    def gap(self) -> float | None:
        """accuracy − mean confidence: negative when over-confident."""
        if self.accuracy is None or self.mean_confidence is None:
            return None
        return self.accuracy - self.mean_confidence


@dataclass(frozen=True)
class CalibrationSummary:
    n: int
    ece: float
    brier: float
    mean_confidence: float
    accuracy: float
    bins: tuple[ReliabilityBin, ...]


def _check(confidences: Sequence[float], correct: Sequence[bool]) -> None:
    if len(confidences) != len(correct):
        raise ConfigError(f"{len(confidences)} confidences but {len(correct)} right/wrong answers")
    for c in confidences:
        if not 0.0 <= c <= 1.0:
            raise ConfigError(f"confidence {c!r} is outside [0, 1]")


def _bin_index(confidence: float, bins: int) -> int:
    return min(int(confidence * bins), bins - 1)


def reliability_bins(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> tuple[ReliabilityBin, ...]:
    """Every one of the `bins` equal-width bins, empty ones included (count 0, values None)."""
    _check(confidences, correct)
    if bins < 1:
        raise ConfigError("bins must be at least 1")
    sums = [0.0] * bins
    hits = [0] * bins
    counts = [0] * bins
    for c, ok in zip(confidences, correct, strict=True):
        i = _bin_index(c, bins)
        sums[i] += c
        hits[i] += int(ok)
        counts[i] += 1
    return tuple(
        ReliabilityBin(
            lower=i / bins,
            upper=(i + 1) / bins,
            count=counts[i],
            mean_confidence=sums[i] / counts[i] if counts[i] else None,
            accuracy=hits[i] / counts[i] if counts[i] else None,
        )
        for i in range(bins)
    )


def expected_calibration_error(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> float:
    """ECE with equal-width bins (see the module docstring); 0.0 for no items."""
    table = reliability_bins(confidences, correct, bins)
    n = len(confidences)
    if n == 0:
        return 0.0
    return sum(b.count / n * abs(b.gap) for b in table if b.gap is not None)


def brier_score(confidences: Sequence[float], correct: Sequence[bool]) -> float:
    """Mean squared difference between confidence and the 0/1 outcome; 0.0 for no items."""
    _check(confidences, correct)
    if not confidences:
        return 0.0
    return sum((c - float(ok)) ** 2 for c, ok in zip(confidences, correct, strict=True)) / len(
        confidences
    )


def summarize_calibration(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> CalibrationSummary:
    n = len(confidences)
    return CalibrationSummary(
        n=n,
        ece=expected_calibration_error(confidences, correct, bins),
        brier=brier_score(confidences, correct),
        mean_confidence=sum(confidences) / n if n else 0.0,
        accuracy=sum(map(int, correct)) / n if n else 0.0,
        bins=reliability_bins(confidences, correct, bins),
    )
