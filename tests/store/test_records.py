"""One stored outcome per (run, model, sample, epoch); what a resume still has to ask."""

from __future__ import annotations

from proctor.store import RunStore
from support.store_factories import make_record


def test_first_ok_record_wins(store: RunStore, run: str) -> None:
    store.add_records([make_record(run, "s00000", text="first")])
    store.add_records([make_record(run, "s00000", text="second")])
    store.add_records(
        [make_record(run, "s00001", text="one"), make_record(run, "s00001", text="two")]
    )
    assert [(r.sample_id, r.text) for r in store.records(run)] == [
        ("s00000", "first"),
        ("s00001", "one"),
    ]


def test_ok_replaces_call_failed_but_never_the_reverse(store: RunStore, run: str) -> None:
    failed = make_record(run, "s00000", status="call_failed", text="", attempts=5, error="503")
    store.add_records([failed])
    assert store.failed(run, "fake/a") == ["s00000"]
    ok = make_record(run, "s00000", text="Final answer: 0", attempts=1)
    store.add_records([ok])
    assert store.records(run) == [ok]
    store.add_records([failed])
    assert store.records(run) == [ok]
    assert store.failed(run, "fake/a") == []


def test_a_later_failure_replaces_an_earlier_one(store: RunStore, run: str) -> None:
    store.add_records([make_record(run, "s00000", status="call_failed", error="first")])
    store.add_records([make_record(run, "s00000", status="call_failed", error="second")])
    assert [r.error for r in store.records(run)] == ["second"]


def test_missing_lists_only_pairs_without_any_record(store: RunStore, run: str) -> None:
    all_pairs = [(f"s0000{i}", e) for i in range(3) for e in range(2)]
    assert store.missing(run, "fake/a", epochs=2) == all_pairs
    store.add_records(
        [
            make_record(run, "s00000", epoch=0),
            make_record(run, "s00001", epoch=1, status="call_failed"),
            make_record(run, "s00002", epoch=0, model="fake/b"),
        ]
    )
    # A call_failed record is a stored outcome: not asked again on a plain resume.
    assert store.missing(run, "fake/a", epochs=2) == [
        ("s00000", 1),
        ("s00001", 0),
        ("s00002", 0),
        ("s00002", 1),
    ]
    assert store.missing(run, "fake/a") == [("s00001", 0), ("s00002", 0)]
    assert store.missing(run, "fake/b") == [("s00000", 0), ("s00001", 0)]
    assert store.failed(run, "fake/a") == ["s00001"]
    assert store.failed(run, "fake/b") == []
