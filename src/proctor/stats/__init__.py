"""Pure statistics over graded items: intervals, accuracy, tiers, pass@k, paired tests, taxonomy.

What this package root exports needs only the standard library. The numpy-based modules — the
seeded bootstrap (`bootstrap`), paired tests (`paired`), Holm-corrected rankings (`multiple`) and
repeated-sample metrics (`repeats`) — are imported from their own modules, so that importing
`proctor.stats` (as the runner does) stays light; the names below are imported when first used
(`proctor._util.lazy_exports`), so that importing one module of the package (`proctor.stats.cost`)
does not import them all.
"""

from typing import TYPE_CHECKING

from proctor._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from proctor.stats.intervals import (
        clustered_mean_interval,
        clustered_wilson_interval,
        wilson_interval,
    )
    from proctor.stats.metrics import Cell, ModelMetrics, RunMetrics, ranked, summarize
    from proctor.stats.passk import majority_vote, pass_at_k
    from proctor.stats.size import model_size, size_trend
    from proctor.stats.taxonomy import (
        ERROR_CLASSES,
        TAXONOMY_RULES,
        classify_error,
        taxonomy_counts,
    )
    from proctor.stats.tiers import TIERS, Tier, tier_for

__all__ = [
    "ERROR_CLASSES",
    "TAXONOMY_RULES",
    "TIERS",
    "Cell",
    "ModelMetrics",
    "RunMetrics",
    "Tier",
    "classify_error",
    "clustered_mean_interval",
    "clustered_wilson_interval",
    "majority_vote",
    "model_size",
    "pass_at_k",
    "ranked",
    "size_trend",
    "summarize",
    "taxonomy_counts",
    "tier_for",
    "wilson_interval",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "clustered_mean_interval": ".intervals",
        "clustered_wilson_interval": ".intervals",
        "wilson_interval": ".intervals",
        "Cell": ".metrics",
        "ModelMetrics": ".metrics",
        "RunMetrics": ".metrics",
        "ranked": ".metrics",
        "summarize": ".metrics",
        "majority_vote": ".passk",
        "pass_at_k": ".passk",
        "model_size": ".size",
        "size_trend": ".size",
        "ERROR_CLASSES": ".taxonomy",
        "TAXONOMY_RULES": ".taxonomy",
        "classify_error": ".taxonomy",
        "taxonomy_counts": ".taxonomy",
        "TIERS": ".tiers",
        "Tier": ".tiers",
        "tier_for": ".tiers",
    },
)
