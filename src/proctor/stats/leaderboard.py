"""A leaderboard: models (and variants) × tasks, from one result per (model, task).

Each cell is the model's accuracy on the task with its interval, exactly as the run's own report
has them (`ModelMetrics`). A model's mean is the plain mean of its tasks' accuracies (each task
counts the same, whatever its size); its interval treats the tasks as independent, each with the
standard error its own interval implies. Models are ranked by their mean over every task of the
board (a model missing a task ranks below every model that has them all); each is compared with
the next one down on the items both answered (paired: exact McNemar on right/wrong), all the
adjacent comparisons Holm-adjusted as one family (`proctor.stats.multiple`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from proctor.stats.intervals import normal_quantile
from proctor.stats.metrics import Cell
from proctor.stats.multiple import holm_adjusted
from proctor.stats.paired import PairedComparison, PairedTest, compare_paired

COMPLETE = "complete"
MISSING = "missing"
STOPPED_EARLY = "stopped early by design"
"""A sequential run's state once its test decided (`proctor.runs.stopped`): the items left
were not asked on purpose. Its run succeeded; its cell is over the items asked."""


@dataclass(frozen=True)
class TaskResult:
    """One model's result on one task, from one run: what the board reads of it."""

    task: str
    model: str
    run_id: str
    created_at: str
    grader_version: str
    state: str
    """"complete", "incomplete", "calls failed" or STOPPED_EARLY (the run's state for this
    model)."""
    n_items: int
    overall: Cell
    """Its accuracy on the scored items, with the interval (`ModelMetrics.overall`)."""
    scores: Mapping[str, float]
    """Per item ("sample#epoch"), 1.0 right, 0.0 wrong; unscored and failed calls left out."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None


@dataclass(frozen=True)
class BoardCell:
    task: str
    run_id: str
    state: str
    """"complete", "incomplete", "calls failed", STOPPED_EARLY, or "missing" (no run has
    it)."""
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None
    n_scored: int
    n_items: int


@dataclass(frozen=True)
class BoardRow:
    model: str
    rank: int
    cells: Mapping[str, BoardCell]
    mean: float | None
    mean_low: float | None
    mean_high: float | None
    tasks_scored: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    versus_next: PairedComparison | None
    """Against the next model down, on the items both answered, Holm-adjusted; None for the
    last. The test only (`ci_low`, `ci_high` None): no renderer of the board shows the
    difference's interval, and its bootstrap was most of the time of a board of 500 models."""

    @property
    def differs_from_next(self) -> bool:
        return self.versus_next is not None and self.versus_next.significant


@dataclass(frozen=True)
class Leaderboard:
    tasks: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    confidence: float = 0.95

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks": list(self.tasks),
            "confidence": self.confidence,
            "models": [_row_json(r) for r in self.rows],
        }


def build_leaderboard(
    results: Sequence[TaskResult],
    *,
    tasks: Sequence[str] = (),
    models: Sequence[str] = (),
    confidence: float = 0.95,
    seed: int = 0,
) -> Leaderboard:
    """The board of `results` (one per model and task: two for the same pair is an error of
    the caller's selection); `tasks` and `models` expected besides (a set's), shown missing
    where no result has them."""
    tasks = tuple(sorted({r.task for r in results} | set(tasks)))
    by_model: dict[str, dict[str, TaskResult]] = {m: {} for m in models}
    for r in results:
        cells = by_model.setdefault(r.model, {})
        if r.task in cells:
            raise ValueError(f"two results for {r.model} on {r.task}")
        cells[r.task] = r
    z = normal_quantile(confidence)
    means = {m: _mean(list(cells.values()), z) for m, cells in by_model.items()}

    def key(model: str) -> tuple[int, float, str]:
        scored = sum(c.overall.accuracy is not None for c in by_model[model].values())
        mean = means[model][0]
        return (-scored, -(mean if mean is not None else -1.0), model)

    order = sorted(by_model, key=key)
    test = PairedTest(confidence=confidence, seed=seed)
    pairable = {m: _pairable(by_model[m]) for m in order}
    versus = holm_adjusted(
        [
            compare_paired(*_shared(by_model[a], by_model[b], pairable[a], pairable[b]),
                           names=(a, b), test=test, interval=False)
            for a, b in pairwise(order)
        ]
    )  # fmt: skip
    rows = []
    for rank, model in enumerate(order, start=1):
        cells = by_model[model]
        mean, low, high = means[model]
        costs = [c.cost for c in cells.values()]
        rows.append(
            BoardRow(
                model=model, rank=rank,
                cells={t: _cell(t, cells.get(t)) for t in tasks},
                mean=mean, mean_low=low, mean_high=high,
                tasks_scored=sum(c.overall.accuracy is not None for c in cells.values()),
                prompt_tokens=sum(c.prompt_tokens for c in cells.values()),
                completion_tokens=sum(c.completion_tokens for c in cells.values()),
                cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
                versus_next=versus[rank - 1] if rank - 1 < len(versus) else None,
            )
        )  # fmt: skip
    return Leaderboard(tasks, tuple(rows), confidence)


class ItemScores(Mapping[str, float]):
    """A model's per-item scores on a run's items, one byte each (the run's board cells):
    `marks[i]` is 1 (right), 0 (wrong) or any other value (not scored) for `ids[i]`. Read as
    the mapping `TaskResult.scores` is, in the order of `ids`; models of one run share its
    `ids`, and two such are paired without a lookup per item."""

    def __init__(self, items: Sequence[str], marks: bytes) -> None:
        if len(items) != len(marks):
            raise ValueError(f"{len(items)} items but {len(marks)} marks")
        self.ids = items
        self.marks = np.frombuffer(marks, dtype=np.uint8)
        self._at: dict[str, int] | None = None

    def _scored(self) -> dict[str, int]:
        """Where each scored item is, in the order of `ids` (made when first asked)."""
        if self._at is None:
            scored: list[int] = np.flatnonzero(self.marks <= 1).tolist()
            self._at = {self.ids[i]: i for i in scored}
        return self._at

    def __getitem__(self, item: str) -> float:
        return float(self.marks[self._scored()[item]])

    def __iter__(self) -> Iterator[str]:
        return iter(self._scored())

    def __len__(self) -> int:
        return len(self._scored())


Pairable = tuple[tuple[tuple[str, int], ...], np.ndarray] | None
"""A model's tasks (each with the identity of its items' list) and all its marks end to end,
when every task's scores are `ItemScores`: two models with the same tasks on the same items'
lists are paired in one step."""


def _pairable(cells: Mapping[str, TaskResult]) -> Pairable:
    scores = [(t, r.scores) for t, r in cells.items()]
    if not scores or not all(isinstance(x, ItemScores) for _, x in scores):
        return None
    marks = [x for _, x in scores if isinstance(x, ItemScores)]
    layout = tuple((t, id(x.ids)) for (t, _), x in zip(scores, marks, strict=True))
    return layout, np.concatenate([x.marks for x in marks])


def _shared(
    a: Mapping[str, TaskResult], b: Mapping[str, TaskResult], pa: Pairable, pb: Pairable
) -> tuple[list[float] | np.ndarray, list[float] | np.ndarray]:
    """Model a's and model b's scores on the items both have, task by task (a's tasks in a's
    order, each task's items in a's order)."""
    if pa is not None and pb is not None and pa[0] == pb[0]:
        both = (pa[1] <= 1) & (pb[1] <= 1)
        return pa[1][both].astype(np.float64), pb[1][both].astype(np.float64)
    left: list[np.ndarray] = []
    right: list[np.ndarray] = []
    for task, ours in a.items():
        theirs = b.get(task)
        if theirs is None:
            continue
        x, y = ours.scores, theirs.scores
        common = [item for item in x if item in y]
        left.append(np.array([x[i] for i in common], dtype=np.float64))
        right.append(np.array([y[i] for i in common], dtype=np.float64))
    if not left:
        return [], []
    return np.concatenate(left), np.concatenate(right)


def _cell(task: str, r: TaskResult | None) -> BoardCell:
    if r is None:
        return BoardCell(task, "", MISSING, None, None, None, 0, 0)
    o = r.overall
    return BoardCell(task, r.run_id, r.state, o.accuracy, o.ci_low, o.ci_high, o.n, r.n_items)


def _mean(cells: Sequence[TaskResult], z: float) -> tuple[float | None, float | None, float | None]:
    """The mean of the tasks' accuracies and its interval (tasks independent)."""
    known = [c.overall for c in cells if c.overall.accuracy is not None]
    if not known:
        return None, None, None
    mean = sum(c.accuracy or 0.0 for c in known) / len(known)
    variance = 0.0
    for c in known:
        if c.ci_low is not None and c.ci_high is not None:
            variance += ((c.ci_high - c.ci_low) / (2 * z)) ** 2
    half = z * math.sqrt(variance) / len(known)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def _row_json(r: BoardRow) -> dict[str, Any]:
    v = r.versus_next
    return {
        "rank": r.rank,
        "model": r.model,
        "mean": r.mean,
        "mean_ci_low": r.mean_low,
        "mean_ci_high": r.mean_high,
        "tasks_scored": r.tasks_scored,
        "tasks": {
            t: {
                "state": c.state,
                "run_id": c.run_id or None,
                "accuracy": c.accuracy,
                "ci_low": c.ci_low,
                "ci_high": c.ci_high,
                "n_scored": c.n_scored,
                "n_items": c.n_items,
            }
            for t, c in r.cells.items()
        },
        "prompt_tokens": r.prompt_tokens,
        "completion_tokens": r.completion_tokens,
        "cost": r.cost,
        "versus_next": None
        if v is None
        else {
            "model": v.b,
            "n": v.n,
            "difference": v.difference,
            "p": v.p_value,
            "p_adjusted": v.p_adjusted,
            "significant": v.significant,
            "test": v.test,
        },
    }
