"""A run's leaderboard cells (`proctor.store.board_cells`): read when they are stored, else
made and stored, so that a leaderboard reads a few numbers per model and task instead of every
answer again.

The numbers are the report's own. When a report is written (`report_cells`) they are taken from
its statistics, which counted them as the answers were read (the metrics' accuracy and
interval, completeness, the ledger's tokens, the marks: `ModelParts`), so the answers are not
read a second time. A folder whose cells are not there (an older proctor's, a generated store)
has them computed from its stored answers (`run_cells`): the accuracy and its interval by
`rights_cell` (what `summarize` gives a model), the counts `completeness` makes, the tokens
`ledger` sums; each answer read without its reply, one run at a time, in one transaction with
the writing of the cells (`board_cells.computed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter

from proctor.stats.completeness import NOT_ASKED
from proctor.stats.metrics import NOT_SCORED, rights_cell
from proctor.stats.run_statistics import RunStatistics
from proctor.store import RunStore
from proctor.store import board_cells as cells_table
from proctor.store.board_cells import NO_MARK, RIGHT, WRONG, AnswerMark, ModelCells, RunCells

RECIPE = 2
"""How the cells are computed here: change it with the computation, and the cells a former
proctor stored are computed again."""


def run_cells(store: RunStore, run_id: str) -> RunCells:
    """The run's cells: as stored, else computed now and stored."""
    models = store.run_info(run_id).models

    def compute(version: str | None, items: Sequence[str], marks: Iterable[AnswerMark]) -> RunCells:
        return _compute(run_id, models, version, items, marks)

    return cells_table.computed(store, run_id, compute, RECIPE)


def report_cells(store: RunStore, stats: RunStatistics) -> RunCells:
    """The run's cells: as stored, else made from its report's statistics and stored; computed
    from its answers (`run_cells`) only when the statistics cannot give them: their grades are
    not the stored ones (kinds counted by people's verdicts), or another writer changed the
    store after they were read (`board_cells.made`)."""
    run_id = stats.info.run_id
    by_people = stats.human is not None and stats.human.counted > 0
    if stats.store_version is None or by_people:
        return run_cells(store, run_id)

    def make(version: str | None, items: tuple[str, ...]) -> RunCells | None:
        if version != stats.grader_version:
            return None
        return statistics_cells(stats, version, items)

    cells = cells_table.made(store, run_id, make, RECIPE, stats.store_version)
    return cells if cells is not None else run_cells(store, run_id)


def statistics_cells(stats: RunStatistics, version: str | None, items: Sequence[str]) -> RunCells:
    """The cells of every model of a report's statistics (`stats.marks`' models): the same as
    `_compute` makes of the answers they were made from. `items`: the run's ("sample#epoch")."""
    pairs = [(sample, int(epoch)) for sample, _, epoch in (i.rpartition("#") for i in items)]
    metrics = {m.model: m for m in stats.metrics.models}
    states = {c.model: c for c in stats.completeness.models}
    spent = {c.model: c for c in stats.cost}
    cells: dict[str, ModelCells] = {}
    for model, marks in stats.marks.items():
        m, state, x = metrics[model], states[model], spent[model]
        cells[model] = ModelCells(
            model=model, n_items=m.n_items, overall=m.overall, not_asked=state.not_asked,
            failed=state.failed, prompt_tokens=x.prompt_tokens - x.batch_prompt_tokens,
            completion_tokens=x.completion_tokens - x.batch_completion_tokens,
            batch_prompt_tokens=x.batch_prompt_tokens,
            batch_completion_tokens=x.batch_completion_tokens, marks=marks.row(pairs),
        )  # fmt: skip
    return RunCells(stats.info.run_id, version, tuple(items), cells)


@dataclass
class _Tally:
    """One model's answers, as they are read."""

    marks: bytearray
    n_items: int = 0
    not_asked: int = 0
    failed: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """Live prompt, live completion, batched prompt, batched completion."""
    rights: list[bool] = field(default_factory=list)
    clusters: list[str] = field(default_factory=list)
    """The sample of each of `rights`."""


def _compute(
    run_id: str,
    models: Sequence[str],
    version: str | None,
    items: Sequence[str],
    marks: Iterable[AnswerMark],
) -> RunCells:
    """The cells of every model of the run; the answers come model by model (`records`
    order), and only the model being read is held beyond its row of bytes."""
    slot = {key: i for i, key in enumerate(items)}
    cells = {m: _cells(m, _Tally(bytearray([NO_MARK]) * len(items))) for m in models}
    for model, answers in groupby(marks, key=attrgetter("model")):
        t = _Tally(bytearray([NO_MARK]) * len(items))
        for mark in answers:
            _count(t, mark, slot)
        cells[model] = _cells(model, t)
    return RunCells(run_id, version, tuple(items), cells)


def _count(t: _Tally, mark: AnswerMark, slot: dict[str, int]) -> None:
    t.n_items += 1
    if mark.failed:
        if mark.error.startswith(NOT_ASKED + ":"):
            t.not_asked += 1
        else:
            t.failed += 1
    if not mark.reused:  # a reused answer cost nothing this time (`ledger`)
        at = 2 if mark.batched else 0
        t.tokens[at] += mark.prompt_tokens
        t.tokens[at + 1] += mark.completion_tokens
    outcome = mark.outcome or "unscored"  # never graded: NOT_GRADED_YET
    if outcome not in NOT_SCORED:
        right = outcome == "correct"
        t.rights.append(right)
        t.clusters.append(mark.sample_id)
        t.marks[slot[f"{mark.sample_id}#{mark.epoch}"]] = RIGHT if right else WRONG


def _cells(model: str, t: _Tally) -> ModelCells:
    return ModelCells(
        model=model, n_items=t.n_items, overall=rights_cell(t.rights, t.clusters),
        not_asked=t.not_asked, failed=t.failed, prompt_tokens=t.tokens[0],
        completion_tokens=t.tokens[1], batch_prompt_tokens=t.tokens[2],
        batch_completion_tokens=t.tokens[3], marks=bytes(t.marks),
    )  # fmt: skip
