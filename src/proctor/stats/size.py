"""Model size against accuracy (the seed's §5.3: bigger is usually better, but not linearly).

A model's size (parameter count) comes from a table the user gives, else from its name:
"qwen2.5-7b" → 7e9, "SmolLM2-135M" → 1.35e8, "llama3.1:70b" → 7e10, "mixtral-8x7b" → 5.6e10;
the embedded `local` model is SmolLM2-135M-Instruct, 1.35e8.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from proctor.stats.metrics import ModelMetrics

KNOWN_SIZES: dict[str, float] = {"local": 1.35e8}
"""Sizes of models whose name does not say it."""

_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
# A size is a number right after a separator or the start ("-7b", ":70b", "/135M", "_0.5B"),
# optionally "NxM" for a mixture of experts, followed by a unit and then no letter or digit.
_SIZE = re.compile(
    r"(?:^|[-_/:.\s])(?:(\d+)x)?(\d+(?:\.\d+)?)([kmbt])(?![a-z0-9])",
    re.IGNORECASE,
)


_KINDS = frozenset({"openai", "openai-compat", "anthropic", "local", "fake"})


def _name_part(model: str) -> str:
    """The part of a model string that names the model: no URL after "@", no provider kind."""
    name = model.split("@", 1)[0]
    kind, sep, rest = name.partition("/")
    return rest if sep and kind in _KINDS else name


def model_size(model: str, table: Mapping[str, float] | None = None) -> float | None:
    """Parameter count of `model`, from `table` (exact name, then the name without provider,
    case-insensitive), `KNOWN_SIZES`, then the first size written in the name; None when
    nothing says it. A size under a million ("-4k", "-8k": context lengths) is not a size.
    """
    lookup = {key.casefold(): value for key, value in {**KNOWN_SIZES, **(table or {})}.items()}
    part = _name_part(model)
    for key in (model, part):
        if key.casefold() in lookup:
            return lookup[key.casefold()]
    found: float | None = None
    for match in _SIZE.finditer(part):
        experts, number, unit = match.groups()
        size = float(number) * _UNITS[unit.lower()] * (int(experts) if experts else 1)
        if size < 1e6:
            continue  # "-4k", "-8k": context lengths, not sizes
        found = size if found is None else found
    return found


@dataclass(frozen=True)
class SizePoint:
    model: str
    parameters: float
    accuracy: float
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class SizeTrend:
    """Accuracy against log10(parameters), over the models whose size is known."""

    points: tuple[SizePoint, ...]
    unknown: tuple[str, ...]
    """Models left out: no size known, or nothing scored."""
    slope_per_decade: float | None
    """Least-squares slope: accuracy gained per tenfold parameters (needs two distinct sizes)."""
    spearman: float | None
    """Rank correlation of size and accuracy (needs two distinct sizes and accuracies)."""


def size_trend(
    metrics: Iterable[ModelMetrics], table: Mapping[str, float] | None = None
) -> SizeTrend:
    points: list[SizePoint] = []
    unknown: list[str] = []
    for m in metrics:
        size = model_size(m.model, table)
        if size is None or m.accuracy is None:
            unknown.append(m.model)
            continue
        points.append(SizePoint(m.model, size, m.accuracy, m.ci_low, m.ci_high))
    points.sort(key=lambda p: (p.parameters, p.model))
    xs = [math.log10(p.parameters) for p in points]
    ys = [p.accuracy for p in points]
    return SizeTrend(tuple(points), tuple(unknown), _slope(xs, ys), _spearman(xs, ys))


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def _ranks(values: Sequence[float]) -> list[float]:
    """Average ranks (ties share the mean of their positions)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy)
