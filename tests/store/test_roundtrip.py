"""Everything given to the store comes back unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from proctor.types import Record, Sample, Score, Usage
from support.store_factories import make_info, make_record, make_samples


def test_opens_one_wal_file_in_the_results_folder(tmp_path: Path) -> None:
    results = tmp_path / "a" / "b"
    with RunStore.open(results) as store:
        assert store.db_path == results / "proctor.db"
    db = sqlite3.connect(results / "proctor.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_run_info_samples_and_config_round_trip(store: RunStore) -> None:
    info = make_info("r1", models=("openai/gpt-4o", "local"))
    samples = [
        Sample(
            id="q-1",
            input="计算 1/3 + 1/6",
            target="1/2",
            category="fraction",
            difficulty="hard",
            answer_type="fraction",
            metadata={"tags": "a,b", "来源": "seed"},
        ),
        Sample(id="q-0", input="0.1+0.2", target="0.30", answer_type="decimal", decimals=2),
    ]
    config = {"models": ["local"], "params": {"max_tokens": 64}, "limit": 2}
    store.create_run(info, samples, fingerprint="fp", config=config)

    assert store.run_info("r1") == info
    assert store.samples("r1") == samples  # position order, not id order
    assert store.run_config("r1") == config
    assert store.run_status("r1") == "running"


def test_every_record_field_round_trips(store: RunStore, run: str) -> None:
    record = Record(
        run_id=run,
        model="fake/b",
        sample_id="s00001",
        status="call_failed",
        text="partial ✓",
        finish_reason="length",
        usage=Usage(prompt_tokens=123, completion_tokens=45),
        latency_s=1.5,
        attempts=4,
        prompt_variant="cot",
        lang="zh",
        reported_model="fake-b-2026",
        error="Transient: 503",
        epoch=2,
    )
    store.add_records([record])
    assert store.records(run) == [record]
    db = sqlite3.connect(store.db_path)
    created_at = db.execute("SELECT created_at FROM records").fetchone()[0]
    db.close()
    assert created_at.startswith("20")


def test_records_are_ordered_by_model_then_position_then_epoch(store: RunStore) -> None:
    samples = [Sample(id=i, input=i, target="1") for i in ("z", "a", "m")]
    store.create_run(make_info("r"), samples, fingerprint="fp", config={})
    given = [
        make_record("r", sid, model=model, epoch=epoch)
        for model in ("fake/b", "fake/a")
        for sid in ("m", "a", "z")
        for epoch in (1, 0)
    ]
    store.add_records(given)
    keys = [(r.model, r.sample_id, r.epoch) for r in store.records("r")]
    assert keys == [
        (model, sid, epoch)
        for model in ("fake/a", "fake/b")
        for sid in ("z", "a", "m")
        for epoch in (0, 1)
    ]
    assert [r.model for r in store.records("r", "fake/b")] == ["fake/b"] * 6
    assert store.count_records("r") == {"fake/a": 6, "fake/b": 6}


def test_count_records_names_every_model(store: RunStore, run: str) -> None:
    store.add_records([make_record(run, "s00000")])
    assert store.count_records(run) == {"fake/a": 1, "fake/b": 0}


def test_scores_round_trip_and_are_replaced_whole(store: RunStore, run: str) -> None:
    store.add_records([make_record(run, "s00000"), make_record(run, "s00001", epoch=1)])
    first = Score("wrong", "numeric_match", "2 != 3", extracted="2", normalized="2")
    store.save_scores(run, [("fake/a", "s00000", 0, first)], grader_version="g1")
    assert store.scores(run) == {("fake/a", "s00000", 0): first}
    assert store.grader_version(run) == "g1"

    second = Score("correct", "numeric_match", "3 == 3", "3", "3", format_ok=True)
    missing = Score("no_answer", "final_answer_line", "no line", None, None)
    store.save_scores(
        run,
        [("fake/a", "s00001", 1, second), ("fake/a", "s00000", 0, missing)],
        grader_version="g2",
    )
    assert store.scores(run) == {
        ("fake/a", "s00001", 1): second,
        ("fake/a", "s00000", 0): missing,
    }
    assert store.grader_version(run) == "g2"


def test_a_score_without_a_record_is_refused_and_nothing_changes(store: RunStore, run: str) -> None:
    store.add_records([make_record(run, "s00000")])
    kept = Score("correct", "r", "e")
    store.save_scores(run, [("fake/a", "s00000", 0, kept)], grader_version="g1")
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        store.save_scores(run, [("fake/a", "s00002", 0, kept)], grader_version="g2")
    assert store.scores(run) == {("fake/a", "s00000", 0): kept}
    assert store.grader_version(run) == "g1"


def test_a_batch_with_a_bad_record_stores_nothing(store: RunStore, run: str) -> None:
    with pytest.raises(StoreError, match="add records"):
        store.add_records([make_record(run, "s00000"), make_record(run, "no-such-sample")])
    assert store.records(run) == []


def test_duplicate_run_and_sample_ids_are_refused(store: RunStore, run: str) -> None:
    with pytest.raises(StoreError, match="already exists"):
        store.create_run(make_info(run), make_samples(1), fingerprint="x", config={})
    dup = make_samples(2) + make_samples(1)
    with pytest.raises(StoreError, match="appears twice"):
        store.create_run(make_info("r2"), dup, fingerprint="x", config={})
    assert [r.run_id for r in store.list_runs()] == [run]


def test_unknown_run_and_closed_store_raise_store_error(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path)
    for call in (store.run_info, store.samples, store.records, store.count_records):
        with pytest.raises(StoreError, match="no run 'nope'"):
            call("nope")
    with pytest.raises(StoreError, match="no run"):
        store.set_status("nope", "complete")
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_runs()
