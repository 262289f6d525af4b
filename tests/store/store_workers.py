"""Child-process bodies for the concurrency and crash tests (spawn must import them)."""

from __future__ import annotations

import json
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path

from proctor.store import RunStore
from support.store_factories import make_info, make_record, make_samples

BATCH = 10


def write_run(results_dir: str, run_id: str, n: int, start: Barrier) -> None:
    """Open the (maybe not yet created) store, create a run, write n records in batches."""
    start.wait(timeout=60)
    samples = make_samples(n)
    with RunStore.open(Path(results_dir)) as store:
        store.create_run(make_info(run_id, size=n), samples, fingerprint=run_id, config={})
        for i in range(0, n, BATCH):
            store.add_records([make_record(run_id, s.id) for s in samples[i : i + BATCH]])
        store.set_status(run_id, "complete")


def read_runs(results_dir: str, start: Barrier, stop: Event, out: str) -> None:
    """Read everything over and over while others write; counts must only ever grow."""
    start.wait(timeout=60)
    seen: dict[str, int] = {}
    passes = 0
    with RunStore.open(Path(results_dir)) as store:
        while True:  # at least one whole pass, and one more after the writers have finished
            finished = stop.is_set()
            for row in store.list_runs():
                n = len(store.records(row.run_id))
                if n < seen.get(row.run_id, 0):
                    raise AssertionError(f"{row.run_id}: {n} records after {seen[row.run_id]}")
                seen[row.run_id] = n
                store.missing(row.run_id, "fake/a")
            passes += 1
            if finished:
                break
    Path(out).write_text(json.dumps({"passes": passes, "seen": seen}))


def write_until_killed(results_dir: str, run_id: str, n: int, log_path: str) -> None:
    """Write records forever (until SIGKILL), logging each batch after add_records returns."""
    samples = make_samples(n)
    padding = "x" * 2000  # big rows: more pages per commit, more WAL checkpoints to interrupt
    with RunStore.open(Path(results_dir)) as store:
        store.create_run(make_info(run_id, size=n), samples, fingerprint=run_id, config={})
        with open(log_path, "a", encoding="utf-8") as log:
            for i in range(0, n, 5):
                batch = samples[i : i + 5]
                store.add_records([make_record(run_id, s.id, text=padding) for s in batch])
                log.write(" ".join(s.id for s in batch) + "\n")
                log.flush()
