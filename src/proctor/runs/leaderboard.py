"""Which runs a leaderboard reads, and what it reads of each (`proctor leaderboard`).

By default every run of the results folder; or the runs of the sets and the runs named. Of the
runs that hold the same (model, task, grader version), the newest in which that model is
complete is on the board, else the newest (shown incomplete). Each cell's numbers come from the
same `summarize` over the same stored grades as the run's report (so they equal its
results.json), one run's answers in memory at a time; the board itself is built once in
`proctor.stats.leaderboard`, and every renderer reads that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proctor.runs.grade import stored_items
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.completeness import Completeness, ModelCompleteness, completeness
from proctor.stats.cost import PriceTable, ledger
from proctor.stats.leaderboard import COMPLETE, Leaderboard, TaskResult, build_leaderboard
from proctor.stats.metrics import NOT_SCORED, summarize
from proctor.store import RunStore
from proctor.store import sets as sets_table


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
        chosen = _newest(candidates)
        older = len(candidates) - len(chosen)
        if older:
            notes.append(
                f"{older} older result(s) of the same model, task and grader version left off "
                "(name runs or a set to rank those)"
            )
        run_ids = sorted({c.run_id for c in chosen})
        results = [
            cell
            for r in run_ids
            for cell in _read_run(
                store, r, [c for c in chosen if c.run_id == r], prices
            ).values()
        ]
    labels = _labels(results)
    results = [_relabel(r, labels) for r in results]
    board = build_leaderboard(
        results,
        tasks=[t for t in tasks if where.keeps(t, "", "") or not where.tasks],
        models=[m for m in models if not where.models or m in where.models],
    )
    return BoardReading(board, tuple(notes), tuple(run_ids))


@dataclass(frozen=True)
class _Candidate:
    run_id: str
    task: str
    model: str
    created_at: str
    grader_version: str
    state: str


def _chosen(
    store: RunStore, refs: Sequence[str], notes: list[str]
) -> tuple[list[str], list[str], list[str]]:
    """Run ids to read, and the tasks and models a set named expects."""
    if not refs:
        return [r.run_id for r in store.list_runs()], [], []
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
    out: list[_Candidate] = []
    turns = 0
    for run_id in run_ids:
        info = store.run_info(run_id)
        if turn_kind(info.task) is not None:
            turns += 1
            continue
        version = store.grader_version(run_id) or ""
        state = _states(store, run_id)
        for model in info.models:
            if where.keeps(info.task, model, info.created_at):
                out.append(
                    _Candidate(run_id, info.task, model, info.created_at, version,
                               state.get(model, "incomplete"))
                )  # fmt: skip
    if turns:
        notes.append(f"{turns} dialogue or workflow run(s) left off: they have no answers to rank")
    return out


def _states(store: RunStore, run_id: str) -> dict[str, str]:
    """Per model, the run's state without grading anything: what is stored and what failed."""
    info = store.run_info(run_id)
    epochs = store.run_config(run_id).get("epochs", 1)
    expected = info.dataset_size * (epochs if isinstance(epochs, int) else 1)
    counts = store.count_records(run_id)
    out = {}
    for model in info.models:
        if counts.get(model, 0) < expected:
            out[model] = "incomplete"
        elif store.failed(run_id, model):
            out[model] = "calls failed"
        else:
            out[model] = COMPLETE
    return out


def _newest(candidates: Sequence[_Candidate]) -> list[_Candidate]:
    """Per (model, task, grader version): the newest complete, else the newest."""
    best: dict[tuple[str, str, str], _Candidate] = {}
    for c in candidates:
        key = (c.model, c.task, c.grader_version)
        held = best.get(key)
        if held is None or _better(c, held):
            best[key] = c
    return sorted(best.values(), key=lambda c: (c.task, c.model, c.grader_version))


def _better(c: _Candidate, held: _Candidate) -> bool:
    ours, theirs = c.state == COMPLETE, held.state == COMPLETE
    if ours != theirs:
        return ours
    return (c.created_at, c.run_id) > (held.created_at, held.run_id)


def _read_run(
    store: RunStore, run_id: str, chosen: Sequence[_Candidate], prices: PriceTable | None
) -> dict[str, TaskResult]:
    """The cells of one run, for its chosen models: accuracy and interval by the same
    `summarize` its report uses (so a cell equals results.json), its state, tokens and cost,
    and the per-item scores for the paired comparisons. Only one run's answers are held at a
    time, and none of the report's other statistics is computed."""
    info = store.run_info(run_id)
    epochs = store.run_config(run_id).get("epochs", 1)
    items = stored_items(store, run_id)
    metrics = {m.model: m for m in summarize(items, info.models, tiers=None).models}
    states = completeness(
        items, info.models, info.dataset_size * (epochs if isinstance(epochs, int) else 1)
    )
    costs = {x.model: x for x in ledger(items, prices or PriceTable({}), list(info.models))}
    wanted = {c.model for c in chosen}
    scores: dict[str, dict[str, float]] = {m: {} for m in wanted}
    for i in items:
        if i.record.model in wanted and i.score.outcome not in NOT_SCORED:
            key = f"{i.sample.id}#{i.record.epoch}"
            scores[i.record.model][key] = 1.0 if i.score.outcome == "correct" else 0.0
    del items  # the run's answers are not needed past here
    out: dict[str, TaskResult] = {}
    for c in chosen:
        m, spent = metrics[c.model], costs.get(c.model)
        out[c.model] = TaskResult(
            task=c.task, model=c.model, run_id=c.run_id, created_at=c.created_at,
            grader_version=c.grader_version, state=_state(states, c.model), n_items=m.n_items,
            overall=m.overall, scores=scores[c.model],
            prompt_tokens=spent.prompt_tokens if spent else m.total_prompt_tokens,
            completion_tokens=spent.completion_tokens if spent else m.total_completion_tokens,
            cost=spent.cost if spent else None,
        )  # fmt: skip
    return out


def _state(states: Completeness, model: str) -> str:
    row: ModelCompleteness | None = next((x for x in states.models if x.model == model), None)
    if row is None or row.missing or row.not_asked:
        return "incomplete"
    return "calls failed" if row.failed else COMPLETE


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

    return replace(r, task=labels[(r.task, r.grader_version)])
