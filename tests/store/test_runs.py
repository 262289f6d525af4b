"""Finding runs: by reference, by fingerprint, newest first."""

from __future__ import annotations

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from support.store_factories import make_info, make_record, make_samples


def _create(store: RunStore, run_id: str, created_at: str, fingerprint: str = "fp") -> None:
    info = make_info(run_id, created_at=created_at)
    store.create_run(info, make_samples(2), fingerprint=fingerprint, config={})


def test_list_runs_is_newest_first_with_counts(store: RunStore) -> None:
    _create(store, "20260101-000000-a-000001", "2026-01-01T00:00:00+00:00")
    _create(store, "20260301-000000-a-000003", "2026-03-01T00:00:00+00:00")
    _create(store, "20260201-000000-a-000002", "2026-02-01T00:00:00+00:00")
    store.add_records([make_record("20260201-000000-a-000002", "s00000")])
    store.set_status("20260301-000000-a-000003", "complete")
    rows = store.list_runs()
    assert [r.run_id[-1] for r in rows] == ["3", "2", "1"]
    assert rows[0].status == "complete"
    assert rows[0].models == ("fake/a", "fake/b")
    assert [(r.n_samples, r.n_records) for r in rows] == [(2, 0), (2, 1), (2, 0)]


def test_find_resumable_takes_the_newest_unfinished_run(store: RunStore) -> None:
    assert store.find_resumable("fp") is None
    _create(store, "old", "2026-01-01T00:00:00+00:00")
    _create(store, "new", "2026-02-01T00:00:00+00:00")
    _create(store, "other", "2026-03-01T00:00:00+00:00", fingerprint="fp-2")
    assert store.find_resumable("fp") == "new"
    store.set_status("new", "complete")
    assert store.find_resumable("fp") == "old"
    store.set_status("old", "interrupted")
    assert store.find_resumable("fp") == "old"
    store.set_status("old", "complete")
    assert store.find_resumable("fp") is None


def test_resolve_by_id_prefix_and_folder(store: RunStore) -> None:
    _create(store, "20261129-211500-arithmetic-3fa9c2", "2026-11-29T21:15:00+00:00")
    _create(store, "20261129-211500-arithmetic-3fb000", "2026-11-29T21:15:00+00:00")
    _create(store, "20261130-090000-gsm8k-000000", "2026-11-30T09:00:00+00:00")
    rid = "20261129-211500-arithmetic-3fa9c2"
    assert store.resolve(rid) == rid
    assert store.resolve("20261129-211500-arithmetic-3fa") == rid
    assert store.resolve("2026113") == "20261130-090000-gsm8k-000000"
    folder = store.run_dir(rid)
    assert folder == store.results_dir / "runs" / rid and folder.is_dir()
    assert store.resolve(str(folder)) == rid
    assert store.resolve(str(folder) + "/") == rid
    assert store.resolve(f"elsewhere/copies/{rid}") == rid


def test_resolve_unknown_and_ambiguous(store: RunStore) -> None:
    _create(store, "20261129-211500-arithmetic-3fa9c2", "2026-11-29T21:15:00+00:00")
    _create(store, "20261129-211500-arithmetic-3fb000", "2026-11-29T21:15:00+00:00")
    with pytest.raises(StoreError, match=r"no run 'zzz' in .*proctor\.db"):
        store.resolve("zzz")
    with pytest.raises(StoreError, match="no run"):
        store.resolve("runs/20261129")  # a path must end in a whole id
    with pytest.raises(StoreError, match="no run"):
        store.resolve("")
    with pytest.raises(StoreError, match="ambiguous") as err:
        store.resolve("20261129-211500-arithmetic-3f")
    assert "3fa9c2" in str(err.value) and "3fb000" in str(err.value)


def test_run_dir_of_an_unknown_run_is_refused(store: RunStore) -> None:
    with pytest.raises(StoreError, match="no run"):
        store.run_dir("nope")
    assert not (store.results_dir / "runs" / "nope").exists()
