"""The response cache of a results folder, read and pruned for `proctor cache stats|prune`
(the table itself is `proctor.store.response_cache`'s)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from proctor.runs.stored import open_existing
from proctor.store import response_cache
from proctor.store.response_cache import CacheStats

__all__ = ["CacheStats", "Pruned", "cache_stats", "prune_cache"]


@dataclass(frozen=True)
class Pruned:
    gone: int
    """Entries forgotten."""
    left: int
    """Entries the cache still holds."""


def cache_stats(results_dir: Path) -> CacheStats:
    """How many answers the cache holds, their tokens, how often they were reused, per model."""
    with open_existing(results_dir) as store:
        return response_cache.stats(store)


def prune_cache(results_dir: Path, unused_since: datetime) -> Pruned:
    """Forget the entries not used since `unused_since` (runs keep their records)."""
    with open_existing(results_dir) as store:
        gone = response_cache.prune(store, unused_since)
        return Pruned(gone, response_cache.stats(store).entries)
