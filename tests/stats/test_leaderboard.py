"""The leaderboard's arithmetic (`proctor.stats.leaderboard`): the mean of the tasks with its
interval, the ranking (more tasks first, then the mean), missing cells, and the neighbours'
paired comparisons, Holm-adjusted."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from proctor.stats.leaderboard import MISSING, ItemScores, TaskResult, build_leaderboard
from proctor.stats.metrics import Cell
from proctor.stats.multiple import holm
from proctor.stats.paired import mcnemar_exact


def _result(task: str, model: str, right: list[int]) -> TaskResult:
    n = len(right)
    acc = sum(right) / n
    return TaskResult(
        task=task, model=model, run_id=f"run-{task}", created_at="2026-12-01", grader_version="1",
        state="complete", n_items=n,
        overall=Cell(n, sum(right), acc, max(0.0, acc - 0.1), min(1.0, acc + 0.1)),
        scores={f"s{i}#0": float(v) for i, v in enumerate(right)},
        prompt_tokens=10 * n, completion_tokens=n, cost=0.01,
    )  # fmt: skip


def test_mean_interval_and_ranking() -> None:
    good = [1] * 20
    half = [1, 0] * 10
    bad = [0] * 20
    board = build_leaderboard(
        [
            _result("t1", "a", good),
            _result("t2", "a", half),
            _result("t1", "b", half),
            _result("t2", "b", bad),
            _result("t1", "c", bad),
        ]
    )
    assert [r.model for r in board.rows] == ["a", "b", "c"]
    a, b, c = board.rows
    assert a.mean == pytest.approx(0.75)
    # each task's standard error is its interval's width over 2z (t1's is clipped at 1.0)
    z = 1.959963984540054
    half_width = z * math.sqrt((0.1 / (2 * z)) ** 2 + (0.2 / (2 * z)) ** 2) / 2
    assert (a.mean_low, a.mean_high) == pytest.approx((0.75 - half_width, 0.75 + half_width))
    assert c.cells["t2"].state == MISSING and c.tasks_scored == 1
    assert a.prompt_tokens == 400 and a.cost == pytest.approx(0.02)
    # a vs b: on the 40 shared items a is right on 20 where b is wrong, never the reverse
    assert a.versus_next is not None and a.versus_next.n == 40
    p_ab, p_bc = mcnemar_exact(20, 0), mcnemar_exact(10, 0)
    assert a.versus_next.p_adjusted == pytest.approx(holm([p_ab, p_bc])[0])
    assert a.differs_from_next and c.versus_next is None
    assert b.versus_next is not None and b.versus_next.n == 20  # only t1 is shared with c


def test_same_means_are_not_called_different() -> None:
    board = build_leaderboard([_result("t", "a", [1, 0] * 10), _result("t", "b", [0, 1] * 10)])
    assert not board.rows[0].differs_from_next


def test_expected_models_and_tasks_show_missing() -> None:
    board = build_leaderboard([_result("t", "a", [1])], tasks=["u"], models=["z"])
    assert board.tasks == ("t", "u")
    z = next(r for r in board.rows if r.model == "z")
    assert z.mean is None and {c.state for c in z.cells.values()} == {MISSING}
    assert board.rows[-1].model == "z"


def test_two_results_for_one_cell_are_refused() -> None:
    with pytest.raises(ValueError, match="two results"):
        build_leaderboard([_result("t", "a", [1]), _result("t", "a", [0])])


def _packed(r: TaskResult, ids: tuple[str, ...]) -> TaskResult:
    """`r` with its scores as a run's board cells hold them: a byte per item of `ids`."""
    marks = bytes(int(r.scores[i]) if i in r.scores else 255 for i in ids)
    return replace(r, scores=ItemScores(ids, marks))


def test_scores_as_bytes_read_as_the_mapping_they_pack() -> None:
    packed = ItemScores(("s0#0", "s1#0", "s2#0", "s3#0"), bytes([1, 255, 0, 1]))
    assert dict(packed) == {"s0#0": 1.0, "s2#0": 0.0, "s3#0": 1.0} and len(packed) == 3
    assert "s1#0" not in packed and list(packed) == ["s0#0", "s2#0", "s3#0"]
    with pytest.raises(ValueError, match="4 items but 3 marks"):
        ItemScores(("a", "b", "c", "d"), bytes([1, 0, 1]))


def test_a_board_of_packed_scores_is_the_board_of_their_mappings() -> None:
    """Paired in one step (the same tasks on the same runs' items), task by task (one model's
    task from another run), or through the mapping (a plain one): the same comparisons."""
    ids = tuple(f"s{i}#0" for i in range(20))
    other = tuple(f"s{i}#0" for i in range(5, 25))  # t2 of model d: another run's items
    rows = {
        "a": ([1] * 18 + [0] * 2, [1, 0] * 10),
        "b": ([1, 1, 0] * 6 + [1, 0], [1] * 10 + [0] * 10),
        "c": ([0, 1] * 10, [0] * 15 + [1] * 5),
        "d": ([1, 0, 0, 0] * 5, [1, 0, 1, 0, 0] * 4),
    }
    plain = []
    for model, (t1, t2) in rows.items():
        plain.append(_result("t1", model, t1))
        plain.append(_result("t2", model, t2))
    shifted = {f"s{i + 5}#0": float(v) for i, v in enumerate(rows["d"][1])}
    plain[-1] = replace(plain[-1], scores=shifted)
    packed = [_packed(r, other if (r.model, r.task) == ("d", "t2") else ids) for r in plain]
    packed[0] = plain[0]  # one mapping that is not packed: a's pairs go through the mapping
    want, got = build_leaderboard(plain), build_leaderboard(packed)
    assert got.to_json() == want.to_json()
    assert [r.versus_next for r in got.rows] == [r.versus_next for r in want.rows]
    assert [r.versus_next.n for r in want.rows if r.versus_next] == [40, 40, 35]
