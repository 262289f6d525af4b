"""The leaderboard as text: for an 80-column terminal (a ranking table, then the tasks in
blocks of columns that fit) and as Markdown. Pure: every number comes from the `Leaderboard`
(`proctor.stats.leaderboard`); this only formats."""

from __future__ import annotations

from collections.abc import Sequence

from proctor.report.text import names_line, short_names
from proctor.stats.leaderboard import (
    COMPLETE,
    MISSING,
    STOPPED_EARLY,
    BoardCell,
    BoardRow,
    Leaderboard,
)
from proctor.stats.paired import format_p

WIDTH = 80
MODEL_WIDTH = 22
CELL = 10


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}%"


def _ci(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"{low * 100:.1f}–{high * 100:.1f}"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cell_text(cell: BoardCell) -> str:
    """A task's cell: its accuracy, marked when the run is not complete; "missing" when no
    run has it."""
    if cell.state == MISSING:
        return "missing"
    mark = {COMPLETE: "", "incomplete": "*", "calls failed": "!", STOPPED_EARLY: "~"}.get(
        cell.state, "?"
    )
    return _pct(cell.accuracy) + mark


def versus_text(row: BoardRow) -> str:
    v = row.versus_next
    if v is None:
        return ""
    if v.n == 0:
        return "no items shared"
    return ("> " if v.significant else "≈ ") + format_p(v.p).replace(" ", "")


def _cost(cost: float | None) -> str:
    return "no price" if cost is None else f"${cost:,.4f}"


def terminal_lines(
    board: Leaderboard, notes: Sequence[str] = (), *, width: int = WIDTH
) -> list[str]:
    """The board, and the notes on what was left off it, in lines of at most `width`
    characters."""
    import textwrap

    wrapped = [
        line
        for n in notes
        for line in textwrap.wrap(
            f"note: {n}", width, subsequent_indent="  ", break_on_hyphens=False
        )
    ]
    if not board.rows:
        return ["no runs to rank", *wrapped]
    labels = short_names([r.model for r in board.rows])
    conf = f"{board.confidence * 100:g} % CI"
    lines = [
        f"Leaderboard: {len(board.rows)} models × {len(board.tasks)} tasks "
        f"(mean of the tasks' accuracies, {conf})"
    ]
    named = names_line([r.model for r in board.rows])
    if named:
        lines.append(_fit(named, width))
    model_w = max(8, width - 62)
    head = f"{'#':>3} {'model':<{model_w}} {'mean':>6} {conf:>11} {'vs next':>10} "
    lines.append(head + f"{'tokens':>12} {'cost':>13}")
    for r in board.rows:
        tokens = f"{r.prompt_tokens + r.completion_tokens:,}"
        partial = "" if r.tasks_scored == len(board.tasks) else f" ({r.tasks_scored} tasks)"
        lines.append(
            f"{r.rank:>3} {_fit(labels[r.model] + partial, model_w):<{model_w}} "
            f"{_pct(r.mean):>6} {_ci(r.mean_low, r.mean_high):>11} {versus_text(r):>10} "
            f"{tokens:>12} {_cost(r.cost):>13}"
        )
    per_block = max(1, (width - MODEL_WIDTH - 1) // (CELL + 1))
    for start in range(0, len(board.tasks), per_block):
        tasks = board.tasks[start : start + per_block]
        lines.append("")
        lines.append(
            f"{'model':<{MODEL_WIDTH}} " + " ".join(f"{_fit(t, CELL):>{CELL}}" for t in tasks)
        )
        for r in board.rows:
            cells = " ".join(f"{cell_text(r.cells[t]):>{CELL}}" for t in tasks)
            lines.append(f"{_fit(labels[r.model], MODEL_WIDTH):<{MODEL_WIDTH}} {cells}")
    lines.append("")
    lines.extend(legend(board))
    lines.extend(wrapped)
    return [line.rstrip() for line in lines]


def legend(board: Leaderboard) -> list[str]:
    return [
        "vs next: > differs significantly from the next model down, ≈ does not (paired on",
        "the items both answered, Holm-adjusted). * incomplete run, ! calls failed,",
        "~ stopped early by design (a sequential test decided; the rest not asked)",
    ]


def markdown(board: Leaderboard, notes: Sequence[str] = ()) -> str:
    conf = f"{board.confidence * 100:g} % CI"
    head = ["#", "model", "mean", conf, *board.tasks, "vs next", "tokens", "cost"]
    out = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---:" if h != "model" else "---" for h in head) + "|",
    ]
    for r in board.rows:
        cells = [cell_text(r.cells[t]) for t in board.tasks]
        row = [
            str(r.rank), f"`{r.model}`", _pct(r.mean), _ci(r.mean_low, r.mean_high), *cells,
            versus_text(r), f"{r.prompt_tokens + r.completion_tokens:,}", _cost(r.cost),
        ]  # fmt: skip
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in row) + " |")
    out.append("")
    out.extend(legend(board))
    out.extend(f"- {n}" for n in notes)
    return "\n".join(out) + "\n"
