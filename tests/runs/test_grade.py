"""`grade_run` reads, grades and saves a run page by page: the same scores and items as grading
every stored record directly, whatever the page size, with or without keeping the items."""

from __future__ import annotations

import dataclasses
import gc
import os
import threading
from pathlib import Path

import pytest

from proctor.datasets.arithmetic import generate
from proctor.runs.grade import grade, grade_run, grade_workers
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams, Record, RunInfo, Sample, Score, Usage

RUN = "regrade"
MODELS = ("m/b", "m/a")
SAMPLES = generate(3, 40)


def _reply(i: int, sample: Sample) -> str:
    target = sample.target
    forms = (
        f"Step 1: work.\nFinal answer: {target}",
        "Step 1: work.\nFinal answer: 0",
        target,
        f"{sample.input} = {target}",
        f"最终答案：{target}。",
        f"$\\boxed{{{target}}}$",
        f"The result of {sample.input} is {target}",
        "```python\nprint(1)\n```",
        "",
        f"<think>{target}</think>no idea",
    )
    return forms[i % len(forms)]


def _store(tmp_path: Path) -> RunStore:
    store = RunStore.open(tmp_path / "results")
    info = RunInfo(
        run_id=RUN, task="arithmetic", models=MODELS, dataset_hash="x", dataset_size=len(SAMPLES),
        generator_version="x", prompt_variant="B", lang="en", created_at="2026-01-01T00:00:00",
        params=GenerationParams(),
    )  # fmt: skip
    store.create_run(info, SAMPLES, "fp", {})
    records = [
        Record(
            run_id=RUN,
            model=model,
            sample_id=s.id,
            epoch=epoch,
            status="call_failed" if i % 17 == 5 else "ok",
            text=_reply(i + epoch, s),
            finish_reason="length" if i % 13 == 4 else "stop",
            usage=Usage(5, 5),
            latency_s=0.1,
            attempts=1,
            prompt_variant="AB"[i % 2],
            lang="en",
            error="boom" if i % 17 == 5 else "",
        )
        for i, s in enumerate(SAMPLES)
        for model in MODELS
        for epoch in range(2)
        if (i + epoch) % 9 != 8  # some answers missing
    ]
    store.add_records(records)
    return store


def _direct(store: RunStore) -> dict[tuple[str, str, int], Score]:
    samples = {s.id: s for s in store.samples(RUN)}
    return {
        (r.model, r.sample_id, r.epoch): grade(TASK, r, samples[r.sample_id])
        for r in store.records(RUN)
    }


@pytest.mark.parametrize("page_size", [1, 3, 7, 40, 5000])
def test_paged_grading_stores_what_grading_each_record_gives(
    tmp_path: Path, page_size: int
) -> None:
    with _store(tmp_path) as store:
        expected = _direct(store)
        info, items = grade_run(store, RUN, TASK, page_size=page_size)
        assert store.scores(RUN) == expected
        assert store.grader_version(RUN) == f"{TASK.name}/{TASK.version}"
        assert [i.record for i in items] == store.records(RUN)
        assert {(i.record.model, i.sample.id, i.record.epoch): i.score for i in items} == expected
        assert all(i.sample.id == i.record.sample_id for i in items)
        assert info == store.run_info(RUN)
    assert len({s.outcome for s in expected.values()}) >= 5


def test_kept_items_share_one_sample_per_id(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        _, items = grade_run(store, RUN, TASK, page_size=4)
    by_id: dict[str, Sample] = {}
    for item in items:
        assert by_id.setdefault(item.sample.id, item.sample) is item.sample


def test_without_items_the_scores_are_the_same(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        expected = _direct(store)
        _, items = grade_run(store, RUN, TASK, keep_items=False, page_size=6)
        assert items == []
        assert store.scores(RUN) == expected


def test_regrading_replaces_the_scores_of_the_previous_rules(tmp_path: Path) -> None:
    def unscored(record: Record, sample: Sample) -> Score:
        return Score("unscored", "test_rule", "old rules")

    with _store(tmp_path) as store:
        grade_run(store, RUN, dataclasses.replace(TASK, grade=unscored, version="0"), page_size=5)
        # failed calls never reach a task's grader: the grading room grades them call_failed
        assert {s.outcome for s in store.scores(RUN).values()} == {"unscored", "call_failed"}
        grade_run(store, RUN, TASK, keep_items=False, page_size=5)
        assert store.scores(RUN) == _direct(store)
        assert store.grader_version(RUN) == f"{TASK.name}/{TASK.version}"


def test_a_grader_error_propagates_and_leaves_no_grader_version(tmp_path: Path) -> None:
    calls = 0

    def fails_late(record: Record, sample: Sample) -> Score:
        nonlocal calls
        calls += 1
        if calls > 10:
            raise RuntimeError("grader bug")
        return TASK.grade(record, sample)

    with _store(tmp_path) as store:
        grade_run(store, RUN, TASK)
        with pytest.raises(RuntimeError, match="grader bug"):
            grade_run(store, RUN, dataclasses.replace(TASK, grade=fails_late), page_size=3)
        assert store.grader_version(RUN) is None  # the run reads as not graded


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_left_as_it_was(tmp_path: Path, enabled: bool) -> None:
    def fails(record: Record, sample: Sample) -> Score:
        raise RuntimeError("grader bug")

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with _store(tmp_path) as store:
            grade_run(store, RUN, TASK, page_size=7)
            assert gc.isenabled() is enabled
            with pytest.raises(RuntimeError):
                grade_run(store, RUN, dataclasses.replace(TASK, grade=fails))
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_failed_call_never_reaches_the_grader(tmp_path: Path) -> None:
    seen: list[str] = []

    def answered_only(record: Record, sample: Sample) -> Score:
        seen.append(record.status)
        return TASK.grade(record, sample)

    with _store(tmp_path) as store:
        _, items = grade_run(store, RUN, dataclasses.replace(TASK, grade=answered_only))
    failed = [i for i in items if i.record.status == "call_failed"]
    assert failed and set(seen) == {"ok"}
    assert len(seen) == len(items) - len(failed)
    assert {i.score.outcome for i in failed} == {"call_failed"}
    assert all("boom" in i.score.explanation for i in failed)


def _tagged_by_process(record: Record, sample: Sample) -> Score:
    return Score("unscored", "pid", str(os.getpid()))


def test_worker_processes_store_what_one_process_stores(tmp_path: Path) -> None:
    others = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    assert not others, f"threads an earlier test left running keep the workers off: {others}"
    with _store(tmp_path) as store:
        tagging = dataclasses.replace(TASK, grade=_tagged_by_process, version="0")
        grade_run(store, RUN, tagging, keep_items=False, page_size=5, workers=2)
        pids = {s.explanation for s in store.scores(RUN).values() if s.rule == "pid"}
        assert pids and str(os.getpid()) not in pids  # graded in the workers, not here
        assert store.grader_version(RUN) == f"{TASK.name}/0"
        grade_run(store, RUN, TASK, keep_items=False, page_size=5, workers=2)
        assert store.scores(RUN) == _direct(store)
        assert store.grader_version(RUN) == f"{TASK.name}/{TASK.version}"
        # kept items are graded here, whatever `workers` says
        _, items = grade_run(store, RUN, tagging, page_size=5, workers=2)
        assert {i.score.explanation for i in items if i.score.rule == "pid"} == {str(os.getpid())}
        # so is a task that runs the reply's code (its sandbox's time limits)
        runs_code = dataclasses.replace(tagging, version="1", with_limits=lambda _: tagging)
        grade_run(store, RUN, runs_code, keep_items=False, page_size=5, workers=2)
        pids = {s.explanation for s in store.scores(RUN).values() if s.rule == "pid"}
        assert pids == {str(os.getpid())}


def _fails_on_one_sample(record: Record, sample: Sample) -> Score:
    if sample.id == SAMPLES[-3].id:
        raise RuntimeError("grader bug")
    return TASK.grade(record, sample)


def test_a_grader_error_in_a_worker_propagates(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        grade_run(store, RUN, TASK)
        failing = dataclasses.replace(TASK, grade=_fails_on_one_sample, version="9")
        with pytest.raises(RuntimeError, match="grader bug"):
            grade_run(store, RUN, failing, keep_items=False, page_size=4, workers=2)
        assert store.grader_version(RUN) is None


@pytest.mark.parametrize(
    ("cores", "records", "workers"),
    [(1, 100_000, 1), (2, 100_000, 1), (4, 100_000, 3), (16, 100_000, 8), (16, 19_999, 1)],
)
def test_worker_count_follows_cores_and_run_size(
    monkeypatch: pytest.MonkeyPatch, cores: int, records: int, workers: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    assert grade_workers(records) == workers


_PARENT = os.getpid()


def _dies_in_a_worker(record: Record, sample: Sample) -> Score:
    if os.getpid() != _PARENT and sample.id == SAMPLES[20].id:
        os._exit(1)  # as if killed for memory
    return TASK.grade(record, sample)


def test_a_broken_pool_is_finished_in_process(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        dying = dataclasses.replace(TASK, grade=_dies_in_a_worker)
        grade_run(store, RUN, dying, keep_items=False, page_size=3, workers=2)
        assert store.scores(RUN) == _direct(store)
        assert store.grader_version(RUN) == f"{TASK.name}/{TASK.version}"
