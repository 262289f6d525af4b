"""Which run the leaderboard shows when a model has several of one task: the newest complete
one, where "newest" is the order the store made them in. A run's time is kept to the second,
so two runs of one second must not be ordered by their ids' random tails."""

from __future__ import annotations

from pathlib import Path

from proctor.runs.leaderboard import read_leaderboard
from proctor.store import RunStore
from proctor.types import GenerationParams, Record, RunInfo, Sample, Score, Usage

SECOND = "2026-12-01T01:01:01+00:00"


def _store_run(root: Path, run_id: str, n: int, created_at: str = SECOND) -> None:
    samples = [Sample(id=f"s{i}", input=f"{i}", target=str(i)) for i in range(n)]
    info = RunInfo(
        run_id=run_id, task="arithmetic", models=("m/one",), dataset_hash="sha256:x",
        dataset_size=n, generator_version="t", prompt_variant="B", lang="en",
        created_at=created_at, params=GenerationParams(), seed=None,
    )  # fmt: skip
    fields: dict[str, object] = dict(
        run_id=run_id, model="m/one", status="ok", finish_reason="stop", usage=Usage(3, 1),
        latency_s=0.1, attempts=1, prompt_variant="B", lang="en", epoch=0,
    )  # fmt: skip
    records = [Record(sample_id=s.id, text=s.target, **fields) for s in samples]  # type: ignore[arg-type]
    with RunStore.open(root) as store:
        store.create_run(info, samples, "fp", {})
        store.add_records(records)
        store.save_scores(
            run_id, [("m/one", s.id, 0, Score("correct", "t", "")) for s in samples], "a/1"
        )
        store.set_status(run_id, "complete")


def _shown_run(root: Path, *refs: str) -> tuple[str, int]:
    (row,) = read_leaderboard(root, refs).board.rows
    (cell,) = row.cells.values()
    return cell.run_id, cell.n_items


def test_of_two_runs_in_one_second_the_one_stored_last_is_shown(tmp_path: Path) -> None:
    root = tmp_path / "results"
    first, second = "20261201-010101-arithmetic-ffffff", "20261201-010101-arithmetic-000000"
    _store_run(root, first, 2)
    _store_run(root, second, 3)  # made later, though its id sorts first
    assert _shown_run(root) == (second, 3)
    assert _shown_run(root, first, second) == (second, 3)  # named, in either order
    assert _shown_run(root, second, first) == (second, 3)


def test_a_later_second_is_newer_whatever_the_order_stored(tmp_path: Path) -> None:
    root = tmp_path / "results"
    later, earlier = "20261201-010102-arithmetic-000000", "20261201-010101-arithmetic-ffffff"
    _store_run(root, later, 3, created_at="2026-12-01T01:01:02+00:00")
    _store_run(root, earlier, 2)  # an import of an older run, stored after
    assert _shown_run(root) == (later, 3)
