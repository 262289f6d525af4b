"""The eval-set tables (migration 9): a set is found by its fingerprint until complete, by its
id, a prefix of it or its name; its tasks get their runs; nothing that looks like a key is
stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from proctor.store import sets as sets_table


def test_a_set_is_found_until_complete(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        set_id = sets_table.create_set(store, "", "fp1", {"models": ["m"]}, ["a", "b"])
        assert set_id.startswith("set-")
        assert sets_table.find_resumable_set(store, "fp1") == set_id
        assert sets_table.find_resumable_set(store, "other") is None
        sets_table.set_member_run(store, set_id, 1, "run-b")
        stored = sets_table.read_set(store, set_id)
        assert [(m.task, m.run_id) for m in stored.members] == [("a", ""), ("b", "run-b")]
        assert stored.name == set_id and stored.plan == {"models": ["m"]}
        sets_table.set_set_status(store, set_id, "complete")
        assert sets_table.find_resumable_set(store, "fp1") is None
        assert sets_table.read_set(store, set_id).status == "complete"


def test_resolve_by_id_prefix_and_name(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        set_id = sets_table.create_set(store, "weekly", "fp", {}, ["a"])
        assert sets_table.resolve_set(store, set_id) == set_id
        assert sets_table.resolve_set(store, set_id[:-2]) == set_id
        assert sets_table.resolve_set(store, "weekly") == set_id
        # a run id, or nothing, is not a set
        assert sets_table.resolve_set(store, "20261202-010101-arithmetic-abcdef") is None
        assert sets_table.resolve_set(store, "") is None
        with pytest.raises(StoreError, match="no set"):
            sets_table.read_set(store, "set-nothing")


def test_a_key_in_the_plan_is_refused(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, pytest.raises(StoreError, match="credential"):
        sets_table.create_set(store, "", "fp", {"api_key": "sk-live"}, ["a"])
