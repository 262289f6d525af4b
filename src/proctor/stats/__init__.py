"""Pure statistics over graded items: intervals, accuracy, tiers. Imports only types and stdlib."""

from proctor.stats.intervals import wilson_interval
from proctor.stats.metrics import Cell, ModelMetrics, RunMetrics, ranked, summarize
from proctor.stats.tiers import TIERS, Tier, tier_for

__all__ = [
    "TIERS",
    "Cell",
    "ModelMetrics",
    "RunMetrics",
    "Tier",
    "ranked",
    "summarize",
    "tier_for",
    "wilson_interval",
]
