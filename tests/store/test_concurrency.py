"""Several processes on one results folder, and a writer killed mid-flight."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

from proctor.store import RunStore
from store import store_workers

pytestmark = pytest.mark.slow

ctx = multiprocessing.get_context("spawn")


def test_writers_and_a_reader_on_one_file_lose_nothing(tmp_path: Path) -> None:
    results = tmp_path / "results"  # not created yet: the children race to create and migrate it
    run_ids = [f"run-{i}" for i in range(3)]
    start = ctx.Barrier(len(run_ids) + 1)
    stop = ctx.Event()
    reader_out = tmp_path / "reader.txt"
    writers = [
        ctx.Process(target=store_workers.write_run, args=(str(results), rid, 500, start))
        for rid in run_ids
    ]
    reader = ctx.Process(
        target=store_workers.read_runs, args=(str(results), start, stop, str(reader_out))
    )
    for p in [*writers, reader]:
        p.start()
    for p in writers:
        p.join(timeout=180)
    stop.set()
    reader.join(timeout=60)

    assert [p.exitcode for p in writers] == [0, 0, 0]
    assert reader.exitcode == 0
    read = json.loads(reader_out.read_text())
    assert read["passes"] > 0
    assert read["seen"] == {rid: 500 for rid in run_ids}  # its last pass, after the writers
    with RunStore.open(results) as store:
        for rid in run_ids:
            assert store.count_records(rid) == {"fake/a": 500, "fake/b": 0}
            assert store.missing(rid, "fake/a") == []
            assert store.run_status(rid) == "complete"
        assert len(store.list_runs()) == 3


def _logged_ids(log: Path) -> list[str]:
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    complete = text[: text.rfind("\n") + 1]  # a line torn by the kill was never fully logged
    return complete.split()


@pytest.mark.parametrize("extra_delay_s", [0.0, 0.137, 0.31])
def test_a_killed_writer_leaves_every_returned_record(tmp_path: Path, extra_delay_s: float) -> None:
    results = tmp_path / "results"
    log = tmp_path / "written.log"
    n = 20_000
    child = ctx.Process(
        target=store_workers.write_until_killed, args=(str(results), "crash", n, str(log))
    )
    child.start()
    deadline = time.monotonic() + 120
    while len(_logged_ids(log)) < 250 and time.monotonic() < deadline and child.is_alive():
        time.sleep(0.02)
    time.sleep(extra_delay_s)
    child.kill()  # SIGKILL: no cleanup, no atexit, maybe mid-transaction or mid-checkpoint
    child.join(timeout=30)
    assert child.exitcode == -9

    logged = _logged_ids(log)
    assert len(logged) >= 250
    with RunStore.open(results) as store:
        stored = [r.sample_id for r in store.records("crash", "fake/a")]
        assert set(logged) <= set(stored)
        assert len(stored) == len(set(stored))
        assert store.find_resumable("crash") == "crash"
        assert len(store.missing("crash", "fake/a")) == n - len(stored)
    db = sqlite3.connect(results / "proctor.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()
