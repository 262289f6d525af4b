"""A run's leaderboard cells (`proctor.store.board_cells`): read when they are stored, else
computed from its stored answers and stored, so that a leaderboard reads a few numbers per model
and task instead of every answer again.

The numbers are the report's own: the accuracy and its interval by `rights_cell` (what
`summarize` gives a model), the counts `completeness` makes, the tokens `ledger` sums; each
answer is read without its reply, one run at a time, in one transaction with the writing of the
cells (`board_cells.computed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter

from proctor.stats.completeness import NOT_ASKED
from proctor.stats.metrics import NOT_SCORED, rights_cell
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
