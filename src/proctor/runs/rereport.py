"""A stored run reported again (`proctor score`, `proctor report`, and the report at the end of
`proctor run`): its grades (graded again with `regrade`), its statistics built once, its files
written; what the CLI prints, returned as data.

A turn run (dialogue, workflow) is reported by its own kind's rules (`TURN_KINDS`): its grade is
its outcome, and its exit code the one its kind gives that outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from proctor.errors import ProctorError
from proctor.runs.grade import grade_run
from proctor.runs.report import run_statistics, turn_scores, write_report
from proctor.runs.stored import open_existing
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.cost import load_price_table
from proctor.stats.run_statistics import RunStatistics
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task

STREAM_ABOVE = 128
"""MB: a report streams its answers from the store (`StoredItems`) instead of holding them when
holding them would take more than this (`held_mb`). Streamed, no model's answers are held (each
statistic is counted as they are read, `ModelTally`), so the peak stays level, but each file
written reads the store again, model by model: side by side on the 2-core box, `proctor score`
of (e)'s 1 model × 100,000 answers peaks at 140 MB streamed against 324 MB held, in about the
same time (38-40 s against 30-39 s, the taxonomy being most of it), while `proctor report` of
(f)'s 50 models × 2,000 items takes 22 s streamed against 5.6 s held (89 MB against 176 MB):
(f) is held (110 MB by `held_mb`), (e) streams (254 MB). bench/PROFILE.md, "(e) again,
2026-12-02 (2)"."""

ANSWER_KB = 1.1
"""An answer held, as decoded: its record and its grade (measured on (f): 116 MB for 100,000)."""
SAMPLE_KB = 1.5
"""A sample of the paper held: decoded once, shared by every model's answers to it (measured
on (e), one answer a sample: 264 MB for 100,000 of each)."""


def held_mb(answers: int, samples: int) -> float:
    """About what holding `answers` to a paper of `samples` takes, in MB."""
    return (answers * ANSWER_KB + samples * SAMPLE_KB) / 1024


@dataclass(frozen=True)
class Reported:
    """A stored run's report, written: its statistics, the files and the folder they are in."""

    run_id: str
    stats: RunStatistics
    written: list[Path]
    run_dir: Path
    exit_code: int = 0
    """A turn run's: the code its kind gives its outcome (a run of samples: see `stats`)."""


@dataclass(frozen=True)
class StoredRun:
    """Which run a RUN argument names, and what kind of run it is."""

    run_id: str
    task: str
    turns: bool
    """A dialogue or workflow run (`TURN_KINDS`)."""


def find_run(results_dir: Path, run_ref: str) -> StoredRun:
    """The run `run_ref` names (an id, a prefix, a folder, latest); ConfigError when the folder
    holds no store, ProctorError when no such run is there."""
    with open_existing(results_dir) as store:
        run_id = store.resolve(run_ref)
        task = store.run_info(run_id).task
    return StoredRun(run_id, task, turn_kind(task) is not None)


def turn_run_of(results_dir: Path, ref: str) -> tuple[str, str]:
    """(its kind, its id) when `ref` names a turn run (dialogue, workflow) in the store, else
    ("", "")."""
    with RunStore.open(results_dir) as store:
        try:
            run_id = store.resolve(ref)
            task = store.run_info(run_id).task
        except ProctorError:
            return "", ""  # not a run here: `proctor run` says so itself
    return (task, run_id) if turn_kind(task) is not None else ("", "")


def report_run(
    results_dir: Path,
    run_ref: str,
    prices: Path | None,
    task_for: Callable[[str, str], Task],
    *,
    regrade: bool,
    grade_by_human: tuple[str, ...] = (),
    ci: bool = False,
    junit: Path | None = None,
) -> Reported:
    """Write the report of a run of samples from its stored grades, after grading every answer
    again (saving the grades) when `regrade`; the kinds in `grade_by_human` (or "*") are counted
    by people's verdicts where they exist. `task_for(task name, the sandbox limits of its
    last grading or "")`: the Task it is graded and reported with (the limits are named in its
    grader version, e.g. "humaneval/2+strict")."""
    with open_existing(results_dir) as store:
        table = load_price_table(prices)
        run_id = store.resolve(run_ref)
        info = store.run_info(run_id)
        version = store.grader_version(run_id) or ""
        stored = version.partition("+")[2] if version.startswith(f"{info.task}/") else ""
        task = task_for(info.task, stored)
        if regrade:
            grade_run(store, run_id, task, keep_items=False, workers=None)
        # a run too large to hold streams (bounded memory, but each file reads the store
        # again); one that fits holds its answers once
        answers = sum(store.count_records(run_id).values())
        stream = held_mb(answers, info.dataset_size) > STREAM_ABOVE
        stats = run_statistics(
            store, run_id, task, prices=table, grade_by_human=grade_by_human, stream=stream
        )
        written = write_report(store, stats)
        if ci:  # a run just asked: also what CI reads of it (--junit, $GITHUB_STEP_SUMMARY)
            from proctor.runs.ci import run_ci_files

            written += run_ci_files(stats, junit)
        return Reported(run_id, stats, written, store.run_dir(run_id))


def report_turn_run(results_dir: Path, run_id: str, *, regrade: bool) -> Reported:
    """Write the report (and with `regrade`, grade again with the current rules, calling
    nothing) of a stored turn run; the exit code its own command gives it."""
    with open_existing(results_dir) as store:
        kind = turn_kind(store.run_info(run_id).task)
        if kind is None:
            raise ProctorError(f"run {run_id} is not a dialogue or workflow run")
        if regrade or not turn_scores(store, run_id):
            kind.regrade(store, run_id)
        stats = run_statistics(store, run_id, None)
        written = write_report(store, stats)
        code = kind.exit_code(stats.turns[0].outcome) if stats.turns else 0
        return Reported(run_id, stats, written, store.run_dir(run_id), code)


def load_reported(
    results_dir: Path, ref: str, task: Task | None, *, save: bool
) -> tuple[Task, Reported]:
    """A stored run with its stored grades (graded once, as `execute` stored each answer) and
    its statistics, for `proctor.load_run` and `proctor.evaluate`; with `save`, its files
    written, as `proctor run` writes them. `task` None: the task its runs store names."""
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(ref)
        chosen = task if task is not None else get_task(store.run_info(run_id).task)
        stats = run_statistics(store, run_id, chosen)
        written = write_report(store, stats) if save else []
        return chosen, Reported(run_id, stats, written, store.run_dir(run_id))
