"""The grading room: the only place a stored answer is graded, and how its grade is stored.

    store (records) ──► grade (once per record and grader version) ──► store (scores)

A failed call is handled here, once, before any scorer: it is `call_failed` with its stored
error, and a task's grader (one signature for all: an answered `Record` and its `Sample`) never
sees one. A run's stored grades are all made by the grader version the store names for it
(`RunStore.grader_version`): `proctor run` grades each answer as it is stored, `proctor score`
grades every answer again with the current rules, and everything that shows a grade reads the
stored one (`stored_items`). Grading never calls a model."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from proctor.runs.collector import paused_collector
from proctor.score.failed import call_failed_score
from proctor.store import RunStore
from proctor.store.run_store import AnswerWindow, ScoreRow, StoredScore, same_grade
from proctor.tasks.base import NOT_GRADED_YET, Task
from proctor.types import GradedItem, Record, RunInfo, Sample, Score

GRADE_PAGE = 5000
"""Samples (of one model, all epochs) that `grade_run` reads, grades and saves at a time."""

OnGraded = Callable[[str, Score], None]
"""Called after each grade with the model and the grade (for progress)."""


def grader_version(task: Task) -> str:
    """What the stored grades of a run name as their rules: "arithmetic/1", "humaneval/2+strict"."""
    return f"{task.name}/{task.version}"


def grade(task: Task, record: Record, sample: Sample) -> Score:
    """The grade of one stored record: `call_failed` for a failed call (never a wrong answer),
    else the task's grader on the answered record."""
    if record.status == "call_failed":
        return call_failed_score(record.error)
    return task.grade(record, sample)


def stored_items(store: RunStore, run_id: str) -> list[GradedItem]:
    """A stored run's items with their stored grades, in `RunStore.records` order; an answer not
    graded yet reads as `NOT_GRADED_YET`. Nothing is graded here: showing a run never runs a
    grader (nor, for a code task, the reply's code)."""
    return store.graded_items(run_id, NOT_GRADED_YET)


def model_items(store: RunStore, run_id: str, model: str) -> list[GradedItem]:
    """One model's stored answers with their stored grades (`stored_items` of that model), read
    a page at a time: what a check made model by model holds, never the whole run."""
    return list(store.graded_item_stream(run_id, NOT_GRADED_YET, model=model))


class StoredItems:
    """A stored run's items with their stored grades (`stored_items`), read again from the
    store at each walk, a page at a time (`RunStore.graded_item_stream`), and never held: what a
    report of a run of any size reads (`proctor.stats.model_parts.ItemStream`). Each walk opens
    the results folder itself, so it may outlive the store it was made from; it reads the run
    as stored at that moment (a report is written from one state: nothing grades meanwhile)."""

    def __init__(self, store: RunStore, run_id: str) -> None:
        self._results_dir = store.results_dir
        self._run_id = run_id
        counts = store.count_records(run_id)
        self._len = sum(counts.values())
        self._models = tuple(sorted(m for m, n in counts.items() if n))
        self._max_epoch = store.max_epoch(run_id)

    def __iter__(self) -> Iterator[GradedItem]:
        with RunStore.open(self._results_dir) as store:
            yield from store.graded_item_stream(self._run_id, NOT_GRADED_YET)

    def __len__(self) -> int:
        return self._len

    def __contains__(self, item: object) -> bool:
        return any(item == mine for mine in self)

    @property
    def max_epoch(self) -> int:
        return self._max_epoch

    @property
    def models(self) -> tuple[str, ...]:
        """The models with stored answers, in `RunStore.records` order (by name)."""
        return self._models

    def of_model(self, model: str) -> Iterator[GradedItem]:
        with RunStore.open(self._results_dir) as store:
            yield from store.graded_item_stream(self._run_id, NOT_GRADED_YET, model=model)


def prepare(store: RunStore, run_id: str, task: Task) -> None:
    """Before a run (or a resume) stores new grades: if the grades it holds were made by other
    rules, grade them all again now, so that every grade of the run is of one grader version."""
    current = grader_version(task)
    stored = store.grader_version(run_id)
    if stored == current:
        return
    if not store.scores(run_id):
        store.mark_graded(run_id, current)
        return
    grade_run(store, run_id, task, keep_items=False)


def grade_ungraded(store: RunStore, run_id: str, task: Task) -> int:
    """Grade and store the answers that have no grade yet (a session killed between storing an
    answer and grading it); how many there were."""
    prepare(store, run_id, task)
    pairs = store.ungraded(run_id)
    for start in range(0, len(pairs), GRADE_PAGE):
        page = pairs[start : start + GRADE_PAGE]
        store.add_scores(run_id, [_row(r, grade(task, r, s)) for r, s in page])
    return len(pairs)


POOL_MIN_RECORDS = 20_000
"""A re-grade smaller than this runs in one process: starting workers costs more than it saves."""


def grade_workers(records: int) -> int:
    """How many processes `proctor score` grades `records` answers in: one on a machine of one
    or two cores (on this project's 2-core box, two workers were no faster than one: each core
    is busy already), else one fewer than its cores (the parent saves), at most 8."""
    if not sys.platform.startswith("linux"):  # workers are forked: safe on Linux, not macOS
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) <= 2 or records < POOL_MIN_RECORDS:
        return 1
    return min((cores or 1) - 1, 8)


def grade_run(
    store: RunStore,
    run_id: str,
    task: Task,
    *,
    keep_items: bool = True,
    page_size: int = GRADE_PAGE,
    workers: int | None = 1,
) -> tuple[RunInfo, list[GradedItem]]:
    """Re-grade every stored record of a run with `task`'s current rules (`proctor score`).

    Reads, grades and saves the scores a page at a time (`RunStore.answer_page`,
    `RunStore.save_regraded_pages`: a grade equal to the stored one is not written again). With
    `keep_items` every graded item comes back, in `RunStore.records` order; without, the list
    is empty and memory holds one page whatever the size of the run.

    `workers` > 1 (None: `grade_workers` decides) grades pages in that many forked processes,
    each reading its pages from its own connection and sending back only the grades that
    changed; the parent saves them in page order, so the end state and the failure rules are
    those of one process. Not with `keep_items`, nor for a task that runs the reply's code (its
    sandbox's time limits must not meet other workers' load), nor while other threads run (a
    fork copies their locks, not the threads)."""
    info = store.run_info(run_id)
    items: list[GradedItem] = []
    windows = store.answer_windows(run_id, page_size)
    if workers is None:
        workers = grade_workers(sum(store.count_records(run_id).values()))
    pooled = (
        workers > 1
        and not keep_items
        and len(windows) > 1
        and task.with_limits is None  # code runs in its sandbox, under time limits: not 8 at once
        and threading.active_count() == 1
    )
    pages = (
        _pooled_pages(store, windows, task, workers)
        if pooled
        else _graded_pages(store, windows, task, items if keep_items else None)
    )
    # The cyclic collector is paused meanwhile (reference counting still frees all that is
    # dropped): each of its passes walks every object kept, so over the items of a 100k-record
    # run they cost about a quarter of the time. Cycles a grader leaves wait until it resumes.
    with paused_collector():
        store.save_regraded_pages(run_id, pages, grader_version=grader_version(task))
    return info, items


def _row(record: Record, score: Score) -> ScoreRow:
    return (record.model, record.sample_id, record.epoch, score)


Regraded = list[tuple[ScoreRow, StoredScore | None]]
"""A page of new grades, each with the grade stored for it (what `save_regraded_pages` takes)."""


def _graded_pages(
    store: RunStore,
    windows: Sequence[AnswerWindow],
    task: Task,
    items: list[GradedItem] | None,
) -> Iterator[Regraded]:
    """Each page's new scores with the stored ones, graded as it is read; the items appended to
    `items` if given."""
    samples: dict[str, Sample] = {}  # kept items share one Sample per id, whatever the model
    paper: dict[int, Sample] = {}
    for window in windows:
        scores: Regraded = []
        for record, sample, stored in store.answer_page(window, samples=paper):
            score = grade(task, record, sample)
            scores.append((_row(record, score), stored))
            if items is not None:
                items.append(GradedItem(samples.setdefault(sample.id, sample), record, score))
        yield scores


def _pooled_pages(
    store: RunStore, windows: Sequence[AnswerWindow], task: Task, workers: int
) -> Iterator[Regraded]:
    """`_graded_pages` in worker processes, less the grades equal to the stored ones (each
    changed grade comes with None: write it), in page order. At most two pages per worker are
    in flight, so graded pages never pile up while the parent saves. If the pool breaks (a
    worker killed, e.g. out of memory), the pages not yet received are graded here."""
    context = multiprocessing.get_context("fork")  # the task (maybe a closure) is inherited
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(store.results_dir, task)
    )
    pending: deque[Future[Regraded]] = deque()
    received = 0
    try:
        for window in windows:
            pending.append(pool.submit(_grade_window, window))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
                received += 1
        while pending:
            yield pending.popleft().result()
            received += 1
    except BrokenProcessPool:
        yield from _graded_pages(store, windows[received:], task, None)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


_worker: tuple[RunStore, Task, dict[int, Sample]] | None = None


def _start_worker(results_dir: Path, task: Task) -> None:
    global _worker
    _worker = (RunStore.open(results_dir), task, {})


def _grade_window(window: AnswerWindow) -> Regraded:
    assert _worker is not None, "a grading worker starts with _start_worker"
    store, task, paper = _worker
    changed: Regraded = []
    for record, sample, stored in store.answer_page(window, samples=paper):
        score = grade(task, record, sample)
        if not same_grade(score, stored):
            changed.append((_row(record, score), None))
    return changed


GATHER_S = 0.02
"""How long `RunGrader` waits for more answers before grading what is queued (progress lags by
as much; a run's end does not wait for it)."""
GATHER_RECORDS = 512
"""Queued answers that are graded at once, without waiting to gather more."""


class RunGrader:
    """Grades a run's answers as they are stored, one batch at a time on a thread of its own
    (grading may run a reply's code in the sandbox: the event loop and the workers go on), and
    hands each batch's grades to `save` (the run's store writer). `submit` never waits; `close`
    waits for every grade to be saved and raises the first grader error, if any (the answers
    are stored already)."""

    def __init__(
        self,
        task: Task,
        save: Callable[[Sequence[ScoreRow]], Awaitable[None]],
        on_graded: OnGraded | None = None,
    ) -> None:
        self._task = task
        self._save = save
        self._on_graded = on_graded
        self._queue: list[Sequence[tuple[Record, Sample]]] = []
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = asyncio.Event()
        self.error: BaseException | None = None

    def submit(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        """Grade `batch` (records already committed) soon; raises an earlier grader error."""
        if self.error is not None:
            raise self.error
        self._queue.append(batch)
        self._wake.set()
        if self._loop is None:
            self._loop = asyncio.create_task(self._grade_loop())

    async def close(self) -> None:
        self._closing = True
        self._closed.set()
        self._wake.set()
        if self._loop is not None:
            await asyncio.wait([self._loop])
        if self.error is not None:
            raise self.error

    def abandon(self) -> None:
        """Stop grading (the run is stopping): what is not graded yet stays ungraded, and the
        next `proctor run` of the run (or `proctor score`) grades it."""
        self._queue = []
        if self._loop is not None:
            self._loop.cancel()

    async def _grade_loop(self) -> None:
        while True:
            if not self._queue:
                if self._closing or self.error is not None:
                    return
                await self._wake.wait()
                self._wake.clear()
                continue
            if not self._closing and sum(map(len, self._queue)) < GATHER_RECORDS:
                # Nobody waits for a grade (the answers are stored): a moment's wait gathers
                # the answers of many commits into one hand-off to the grading thread and one
                # commit of their grades; each costs the asking loop time on a busy machine.
                with contextlib.suppress(TimeoutError):  # close() ends the wait at once
                    async with asyncio.timeout(GATHER_S):
                        await self._closed.wait()
            queued, self._queue = self._queue, []
            pairs = [pair for batch in queued for pair in batch]
            try:
                rows = await asyncio.to_thread(self._grade, pairs)
                await self._save(rows)
            except Exception as e:  # raised to the next submit and by close
                self.error = e
                return
            if self._on_graded is not None:
                for model, _, _, score in rows:
                    self._on_graded(model, score)

    def _grade(self, pairs: Sequence[tuple[Record, Sample]]) -> list[ScoreRow]:
        return [_row(r, grade(self._task, r, s)) for r, s in pairs]
