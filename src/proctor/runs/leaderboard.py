"""Which runs a leaderboard reads, and what it reads of each (`proctor leaderboard`).

By default every run of the results folder; or the runs of the sets and the runs named. Of the
runs that hold the same (model, task, grader version), the newest in which that model is
complete is on the board, else the newest (shown incomplete). What it reads of each run is the
run's board cells (`proctor.runs.board_cells`: per model its counts, accuracy and interval by
the report's own statistics, so they equal its results.json, tokens, and per-item right/wrong),
computed from its answers the first time and stored until its answers or grades change; the
board itself is built once in `proctor.stats.leaderboard`, and every renderer reads that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proctor.runs.board_cells import RECIPE, run_cells
from proctor.runs.stopped import stopped_early
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.cost import PriceTable, spent_cost
from proctor.stats.leaderboard import (
    COMPLETE,
    STOPPED_EARLY,
    ItemScores,
    Leaderboard,
    TaskResult,
    build_leaderboard,
)
from proctor.store import RunStore
from proctor.store import board_cells as cells_table
from proctor.store import runs as runs_table
from proctor.store import sets as sets_table
from proctor.store.board_cells import ModelCells


@dataclass(frozen=True)
class BoardFilter:
    tasks: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    since: str | None = None
    """Runs created on or after this date (an ISO date or time prefix)."""
    until: str | None = None
    """Runs created on or before this date (an ISO date: that whole day)."""

    def keeps(self, task: str, model: str, created_at: str) -> bool:
        if self.tasks and task not in self.tasks:
            return False
        if self.models and model not in self.models:
            return False
        if self.since is not None and created_at < self.since:
            return False
        return self.until is None or created_at[: len(self.until)] <= self.until


@dataclass(frozen=True)
class BoardReading:
    """The board and what was left off it, in words (runs that have no answers to rank)."""

    board: Leaderboard
    notes: tuple[str, ...] = ()
    runs: tuple[str, ...] = field(default=())
    """The runs on the board."""


def read_leaderboard(
    results_dir: Path,
    refs: Sequence[str] = (),
    where: BoardFilter | None = None,
    prices: PriceTable | None = None,
) -> BoardReading:
    where = where or BoardFilter()
    notes: list[str] = []
    with RunStore.open(results_dir) as store:
        run_ids, tasks, models = _chosen(store, refs, notes)
        candidates = _candidates(store, run_ids, where, notes)
        stored_order = runs_table.run_ids(store)
    chosen = _newest(candidates, {run_id: i for i, run_id in enumerate(stored_order)})
    older = len(candidates) - len(chosen)
    if older:
        notes.append(
            f"{older} older result(s) of the same model, task and grader version left off "
            "(name runs or a set to rank those)"
        )
    table = prices or PriceTable({})
    results = [_result(c, table) for c in chosen]
    labels = _labels(results)
    results = [_relabel(r, labels) for r in results]
    board = build_leaderboard(
        results,
        tasks=[t for t in tasks if where.keeps(t, "", "") or not where.tasks],
        models=[m for m in models if not where.models or m in where.models],
    )
    return BoardReading(board, tuple(notes), tuple(sorted({c.run_id for c in chosen})))


def prepare_board(results_dir: Path, refs: Sequence[str] = ()) -> None:
    """Compute and store the cells the board of `refs` lacks (each run's, from its answers)."""
    with RunStore.open(results_dir) as store:
        answer_runs = _answer_runs(store, _chosen(store, refs, [])[0])
        for run_id in cells_table.missing(store, answer_runs, RECIPE):
            run_cells(store, run_id)


def _answer_runs(store: RunStore, run_ids: Sequence[str]) -> list[str]:
    """The runs of answers to rank (a dialogue's or a workflow's has none)."""
    return [r for r in run_ids if turn_kind(store.run_info(r).task) is None]


@dataclass(frozen=True)
class _Candidate:
    run_id: str
    task: str
    model: str
    created_at: str
    grader_version: str
    state: str
    """For choosing among runs: "incomplete" (answers missing), "calls failed", "complete"."""
    shown: str
    """On the board: "incomplete" (answers missing or calls never made), "calls failed",
    STOPPED_EARLY (a sequential run whose test decided), "complete" (the run report's
    completeness)."""
    cells: ModelCells
    items: tuple[str, ...]


def _chosen(
    store: RunStore, refs: Sequence[str], notes: list[str]
) -> tuple[list[str], list[str], list[str]]:
    """Run ids to read, and the tasks and models a set named expects."""
    if not refs:
        return runs_table.run_ids(store), [], []
    run_ids: list[str] = []
    tasks: list[str] = []
    models: list[str] = []
    for ref in refs:
        set_id = sets_table.resolve_set(store, ref)
        if set_id is None:
            run_ids.append(store.resolve(ref))
            continue
        stored = sets_table.read_set(store, set_id)
        models += [str(m) for m in stored.plan.get("models", []) if str(m) not in models]
        for m in stored.members:
            tasks.append(m.task)
            if m.run_id:
                run_ids.append(m.run_id)
            else:
                notes.append(f"set {set_id}: task {m.task} has no run yet")
    return list(dict.fromkeys(run_ids)), tasks, models


def _candidates(
    store: RunStore, run_ids: Sequence[str], where: BoardFilter, notes: list[str]
) -> list[_Candidate]:
    """Each model of each run the filter keeps, with its run's cells (read, or computed and
    stored the first time)."""
    out: list[_Candidate] = []
    turns = 0
    for run_id in run_ids:
        info = store.run_info(run_id)
        if turn_kind(info.task) is not None:
            turns += 1
            continue
        kept = [m for m in info.models if where.keeps(info.task, m, info.created_at)]
        if not kept:
            continue
        cells = run_cells(store, run_id)
        epochs = store.run_config(run_id).get("epochs", 1)
        expected = info.dataset_size * (epochs if isinstance(epochs, int) else 1)
        stopped = bool(stopped_early(store, run_id))
        for model in kept:
            m = cells.models[model]
            out.append(
                _Candidate(run_id, info.task, model, info.created_at, cells.grader_version or "",
                           _state(m, expected, stopped), _shown(m, expected, stopped), m,
                           cells.items)
            )  # fmt: skip
    if turns:
        notes.append(f"{turns} dialogue or workflow run(s) left off: they have no answers to rank")
    return out


def _state(m: ModelCells, expected: int, stopped: bool) -> str:
    """Per model, the run's state as the choice among runs reads it: what is stored and what
    failed (a call never made counts as failed here). A run `stopped` early by design is done:
    what it did not ask was not needed."""
    if m.n_items < expected and not stopped:
        return "incomplete"
    return "calls failed" if m.failed or m.not_asked else COMPLETE


def _shown(m: ModelCells, expected: int, stopped: bool) -> str:
    """The cell's state as the run's report has it (`completeness`; `with_stop`)."""
    if m.failed:
        return "calls failed" if m.n_items >= expected and not m.not_asked else "incomplete"
    if m.n_items < expected or m.not_asked:
        return STOPPED_EARLY if stopped and not m.not_asked else "incomplete"
    return COMPLETE


def _newest(candidates: Sequence[_Candidate], age: Mapping[str, int]) -> list[_Candidate]:
    """Per (model, task, grader version): the newest complete, else the newest. `age` is each
    run's place in the store's newest-first order (0 the newest): the time a run was made is
    kept to the second, so two runs of one second are told apart by the order they were
    stored in, not by their ids' random tails."""
    best: dict[tuple[str, str, str], _Candidate] = {}
    for c in candidates:
        key = (c.model, c.task, c.grader_version)
        held = best.get(key)
        if held is None or _better(c, held, age):
            best[key] = c
    return sorted(best.values(), key=lambda c: (c.run_id, c.task, c.model, c.grader_version))


def _better(c: _Candidate, held: _Candidate, age: Mapping[str, int]) -> bool:
    ours, theirs = c.state == COMPLETE, held.state == COMPLETE
    if ours != theirs:
        return ours
    return age[c.run_id] < age[held.run_id]


def _result(c: _Candidate, prices: PriceTable) -> TaskResult:
    """The board's reading of one model of one run, from its cells: the accuracy and
    interval its report has, its state, tokens and cost, its per-item right/wrong."""
    m = c.cells
    live = (m.prompt_tokens, m.completion_tokens)
    batched = (m.batch_prompt_tokens, m.batch_completion_tokens)
    return TaskResult(
        task=c.task, model=c.model, run_id=c.run_id, created_at=c.created_at,
        grader_version=c.grader_version, state=c.shown, n_items=m.n_items,
        overall=m.overall,
        scores=ItemScores(c.items, m.marks),
        prompt_tokens=live[0] + batched[0], completion_tokens=live[1] + batched[1],
        cost=spent_cost(prices, c.model, live, batched),
    )  # fmt: skip


def _labels(results: Sequence[TaskResult]) -> dict[tuple[str, str], str]:
    """A task's column is its name; "name (grader version)" where one task was graded by
    several versions of its grader."""
    versions: dict[str, set[str]] = {}
    for r in results:
        versions.setdefault(r.task, set()).add(r.grader_version)
    return {
        (r.task, r.grader_version): r.task
        if len(versions[r.task]) == 1
        else f"{r.task} ({r.grader_version or 'ungraded'})"
        for r in results
    }


def _relabel(r: TaskResult, labels: dict[tuple[str, str], str]) -> TaskResult:
    from dataclasses import replace

    label = labels[(r.task, r.grader_version)]
    return r if label == r.task else replace(r, task=label)
