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


class CalibrationTally:
    """Confidences and right/wrong answers added one at a time, kept as what every figure of
    this module is made of: per bin its count, hits and sum of confidences, and over all of
    them the sum of confidences, the hits and Brier's sum of squares; never the answers
    themselves, so a model of a million answers takes the room of `bins` numbers. Each sum is
    added in the order the answers come, as a list's `sum` adds them."""

    def __init__(self, bins: int = 10) -> None:
        if bins < 1:
            raise ConfigError("bins must be at least 1")
        self._bins = bins
        self._sums = [0.0] * bins
        self._hits = [0] * bins
        self._counts = [0] * bins
        self.n = 0
        self._confidence = 0.0
        self._right = 0
        self._squares = 0.0

    def add(self, confidence: float, correct: bool) -> None:
        """One more answer; ConfigError for a confidence outside [0, 1]."""
        if not 0.0 <= confidence <= 1.0:
            raise ConfigError(f"confidence {confidence!r} is outside [0, 1]")
        i = min(int(confidence * self._bins), self._bins - 1)
        self._sums[i] += confidence
        self._hits[i] += int(correct)
        self._counts[i] += 1
        self.n += 1
        self._confidence += confidence
        self._right += int(correct)
        self._squares += (confidence - float(correct)) ** 2

    def bins(self) -> tuple[ReliabilityBin, ...]:
        """Every bin, empty ones included (count 0, values None)."""
        bins, counts = self._bins, self._counts
        return tuple(
            ReliabilityBin(
                lower=i / bins,
                upper=(i + 1) / bins,
                count=counts[i],
                mean_confidence=self._sums[i] / counts[i] if counts[i] else None,
                accuracy=self._hits[i] / counts[i] if counts[i] else None,
            )
            for i in range(bins)
        )

    @property
    def ece(self) -> float:
        """ECE with equal-width bins (see the module docstring); 0.0 for no answers."""
        n = self.n
        if n == 0:
            return 0.0
        return sum(b.count / n * abs(b.gap) for b in self.bins() if b.gap is not None)

    @property
    def brier(self) -> float:
        """Mean squared difference between confidence and the 0/1 outcome; 0.0 for none."""
        return self._squares / self.n if self.n else 0.0

    def summary(self) -> CalibrationSummary:
        n = self.n
        return CalibrationSummary(
            n=n,
            ece=self.ece,
            brier=self.brier,
            mean_confidence=self._confidence / n if n else 0.0,
            accuracy=self._right / n if n else 0.0,
            bins=self.bins(),
        )


def tally(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> CalibrationTally:
    """The tally of these answers, in their order (ConfigError: lists of unequal length, a
    confidence outside [0, 1], fewer than one bin)."""
    _check(confidences, correct)
    out = CalibrationTally(bins)
    for c, ok in zip(confidences, correct, strict=True):
        out.add(c, ok)
    return out


def reliability_bins(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> tuple[ReliabilityBin, ...]:
    """Every one of the `bins` equal-width bins, empty ones included (count 0, values None)."""
    return tally(confidences, correct, bins).bins()


def expected_calibration_error(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> float:
    """ECE with equal-width bins (see the module docstring); 0.0 for no items."""
    return tally(confidences, correct, bins).ece


def brier_score(confidences: Sequence[float], correct: Sequence[bool]) -> float:
    """Mean squared difference between confidence and the 0/1 outcome; 0.0 for no items."""
    return tally(confidences, correct).brier


def summarize_calibration(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> CalibrationSummary:
    return tally(confidences, correct, bins).summary()
