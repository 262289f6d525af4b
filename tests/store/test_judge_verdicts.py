"""Judge verdicts in the run store (migration 2): stored raw, read back in order, a verdict never
overwritten and a failed judge call replaced; a run's config gains keys but never changes one."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from proctor.errors import StoreError
from proctor.store import SCHEMA_VERSION, RunStore
from proctor.store.run_store import Judgement
from proctor.types import RunInfo, Sample, Usage


def _store(tmp_path: Path) -> RunStore:
    store = RunStore.open(tmp_path)
    info = RunInfo("r1", "suite", ("m",), "sha256:x", 2, "v", "suite", "en", "2026-01-01")
    store.create_run(info, [Sample("a", "q", "t"), Sample("b", "q", "t")], "fp", {"epochs": 1})
    return store


def _judgement(sample_id: str, status: str = "ok", **changes: object) -> Judgement:
    base = Judgement(
        run_id="r1",
        model="m",
        sample_id=sample_id,
        epoch=0,
        judge="fake/judge",
        ordering="single",
        status="ok",
        reply='{"score": 7}',
        replies=("bad", '{"score": 7}'),
        prompt="[]",
        rubric="judge-1",
        attempts=2,
        error="",
        usage=Usage(10, 5),
        latency_s=0.5,
    )
    return replace(base, status=status, **changes)  # type: ignore[arg-type]


def test_migration_2_adds_the_judgements_table(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    db = sqlite3.connect(tmp_path / "proctor.db")
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations ORDER BY 1")]
    db.close()
    assert "judgements" in tables
    assert SCHEMA_VERSION >= 2 and versions == list(range(1, SCHEMA_VERSION + 1))


def test_judgements_round_trip_in_sample_order(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.add_judgements([_judgement("b"), _judgement("a", ordering="ab")])
        store.add_judgements([_judgement("a", judge="other")])
        rows = store.judgements("r1", "fake/judge")
        assert [(j.sample_id, j.ordering) for j in rows] == [("a", "ab"), ("b", "single")]
        assert rows[1] == _judgement("b")
        assert len(store.judgements("r1")) == 3


def test_a_stored_verdict_stays_and_a_failed_call_is_replaced(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.add_judgements([_judgement("a", "unscored", error="no JSON")])
        store.add_judgements([_judgement("a", "ok")])
        assert store.judgements("r1")[0].status == "unscored"
        store.add_judgements([_judgement("b", "call_failed", replies=(), reply="")])
        store.add_judgements([_judgement("b", "ok")])
        assert [j.status for j in store.judgements("r1")] == ["unscored", "ok"]


def test_a_bad_status_is_refused(tmp_path: Path) -> None:
    with _store(tmp_path) as store, pytest.raises(StoreError, match="judgement status"):
        store.add_judgements([_judgement("a", "maybe")])


def test_run_config_gains_keys_but_keeps_its_values(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.add_run_config("r1", {"suite": {"content_hash": "sha256:1"}, "epochs": 9})
        store.add_run_config("r1", {"suite": {"content_hash": "sha256:2"}})
        assert store.run_config("r1") == {"epochs": 1, "suite": {"content_hash": "sha256:1"}}
        with pytest.raises(StoreError, match="credential"):
            store.add_run_config("r1", {"api_key": "sk-123"})
