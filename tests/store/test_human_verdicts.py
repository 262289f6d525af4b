"""The human_verdicts table: append-only, a newer verdict supersedes without overwriting, and a
verdict whose content hash is not the stored reply's is refused with nothing stored."""

from __future__ import annotations

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from proctor.store.human_verdicts import HumanVerdict, latest, reply_hash
from support.store_factories import make_record


def verdict(text: str, verdict: str = "correct", **kw: object) -> HumanVerdict:
    fields: dict[str, object] = {
        "run_id": "r1",
        "model": "fake/a",
        "sample_id": "s00000",
        "epoch": 0,
        "reviewer": "ann",
        "verdict": verdict,
        "note": "",
        "reply_hash": reply_hash(text),
        "blind": False,
        "reviewed_at": "2026-12-01T10:00:00+00:00",
    }
    fields.update(kw)
    return HumanVerdict(**fields)  # type: ignore[arg-type]


@pytest.fixture
def answered(store: RunStore, run: str) -> RunStore:
    store.add_records(
        [make_record(run, "s00000", text="Final answer: 2"), make_record(run, "s00001", text="4")]
    )
    store.add_records([make_record(run, "s00002", status="call_failed", text="")])
    return store


def test_a_stale_content_hash_is_refused_and_nothing_is_stored(answered: RunStore) -> None:
    good = verdict("Final answer: 2")
    stale = verdict("Final answer: 3", sample_id="s00000", reviewer="bob")
    with pytest.raises(StoreError, match=r"verdict 2: .*not the one reviewed"):
        answered.add_human_verdicts("r1", [good, stale])
    assert answered.human_verdicts("r1") == []


def test_a_failed_call_or_a_missing_reply_takes_no_verdict(answered: RunStore) -> None:
    with pytest.raises(StoreError, match="no answered reply"):
        answered.add_human_verdicts("r1", [verdict("", sample_id="s00002")])
    with pytest.raises(StoreError, match="no answered reply"):
        answered.add_human_verdicts("r1", [verdict("x", model="fake/b")])
    assert answered.human_verdicts("r1") == []


def test_a_new_verdict_supersedes_and_the_old_one_stays(answered: RunStore) -> None:
    first = verdict("Final answer: 2", "correct")
    second = verdict(
        "Final answer: 2",
        "wrong",
        note="misread",
        blind=True,
        reviewed_at="2026-12-02T10:00:00+00:00",
    )
    other = verdict("4", "correct", sample_id="s00001", reviewer="bob")
    assert answered.add_human_verdicts("r1", [first, other]) == 2
    assert answered.add_human_verdicts("r1", [second]) == 1
    assert answered.human_verdicts("r1") == [first, other, second]
    now = latest(answered.human_verdicts("r1"))
    assert now[("fake/a", "s00000", 0, "ann")] == second
    assert now[("fake/a", "s00001", 0, "bob")] == other


def test_the_same_verdict_twice_is_stored_once(answered: RunStore) -> None:
    one = verdict("Final answer: 2", note='a, b\n"quoted"')
    assert answered.add_human_verdicts("r1", [one]) == 1
    assert answered.add_human_verdicts("r1", [one, one]) == 0
    assert answered.human_verdicts("r1") == [one]


def test_a_verdict_outside_the_three_is_refused(answered: RunStore) -> None:
    with pytest.raises(StoreError, match="human verdict 'maybe'"):
        answered.add_human_verdicts("r1", [verdict("Final answer: 2", "maybe")])
