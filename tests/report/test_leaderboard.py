"""The leaderboard's text (`proctor.report.leaderboard`): 80 columns whatever the number of tasks
and the length of the names, missing and incomplete cells marked, Markdown with every task."""

from __future__ import annotations

from dataclasses import replace

from proctor.report.leaderboard import markdown, terminal_lines
from proctor.stats.leaderboard import TaskResult, build_leaderboard
from proctor.stats.metrics import Cell


def _result(task: str, model: str, acc: float, state: str = "complete") -> TaskResult:
    return TaskResult(
        task=task, model=model, run_id="r", created_at="", grader_version="", state=state,
        n_items=10, overall=Cell(10, int(acc * 10), acc, acc / 2, min(1.0, acc * 1.5)),
        scores={f"{i}#0": float(i < acc * 10) for i in range(10)},
    )  # fmt: skip


def test_many_tasks_and_long_names_fit_80_columns() -> None:
    tasks = [f"a-rather-long-task-name-{i}" for i in range(12)]
    models = [f"openai-compat/model-with-a-very-long-name-{m}@http://h/v1" for m in range(5)]
    results = [_result(t, m, 0.1 * (i + 1)) for i, m in enumerate(models) for t in tasks]
    results[0] = replace(results[0], state="incomplete")
    board = build_leaderboard(results[:-1])
    lines = terminal_lines(board, ["a note " * 30])
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    assert "missing" in text and "10.0%*" in text
    md = markdown(board)
    header = md.splitlines()[0]
    assert all(t in header for t in tasks)
    assert md.count("\n| ") == len(models) + 0  # one row per model after the header line


def test_an_empty_board_says_so() -> None:
    assert terminal_lines(build_leaderboard([])) == ["no runs to rank"]
