"""`proctor.runs.cache`: the response cache read and pruned for `proctor cache`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.cache import cache_stats, prune_cache
from proctor.store import RunStore, response_cache
from proctor.store.response_cache import CacheEntry
from support.store_factories import make_record


def test_a_folder_without_a_store_is_refused_and_none_is_created(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no run store"):
        cache_stats(tmp_path)
    with pytest.raises(ConfigError, match="no run store"):
        prune_cache(tmp_path, datetime.now(UTC))
    assert not (tmp_path / "proctor.db").exists()


def test_stats_and_prune_count_the_entries(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        response_cache.remember(
            store,
            [
                CacheEntry("k1", "", make_record("r1", "s1", model="fake/a")),
                CacheEntry("k2", "", make_record("r1", "s2", model="fake/a")),
                CacheEntry("k3", "o", make_record("r1", "s3", model="fake/b")),
            ],
        )
    held = cache_stats(tmp_path)
    assert (held.entries, held.owners) == (3, 2)
    assert dict(held.by_model) == {"fake/a": (2, 0), "fake/b": (1, 0)}
    kept = prune_cache(tmp_path, datetime.now(UTC) - timedelta(days=30))
    assert (kept.gone, kept.left) == (0, 3)
    gone = prune_cache(tmp_path, datetime.now(UTC) + timedelta(seconds=1))
    assert (gone.gone, gone.left) == (3, 0)
