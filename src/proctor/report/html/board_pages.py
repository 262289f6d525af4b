"""The viewer's leaderboard and grid pages. Pure: the leaderboard's numbers are the
`Leaderboard`'s (`proctor.stats.leaderboard`), formatted as the terminal's are
(`proctor.report.leaderboard`); the grid's cells come as the viewer read them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from urllib.parse import quote

from proctor.report.html.page import render
from proctor.report.html.viewer_pages import run_href
from proctor.report.leaderboard import cell_text, versus_text
from proctor.stats.leaderboard import BoardRow, Leaderboard

PageHref = Callable[[int], str]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f} %"


RunHref = Callable[[str], str]
"""A run's address: the viewer's page of it, or its report.html beside a written board."""


def board_rows(
    board: Leaderboard,
    rows: Sequence[BoardRow],
    run_link: RunHref,
    model_link: Callable[[str], str] | None,
) -> list[dict[str, object]]:
    """The table's rows, as the viewer's page and the written report.html both show them:
    each cell's accuracy (marked when not complete) over its interval, the mean over tasks with
    its interval, the mark against the next model down, tokens and cost."""
    out: list[dict[str, object]] = []
    for r in rows:
        cells = []
        for t in board.tasks:
            c = r.cells[t]
            title = f"{c.state}: {c.n_scored} of {c.n_items} scored"
            interval = ""
            if c.ci_low is not None and c.ci_high is not None:
                interval = f"{_pct(c.ci_low)}–{_pct(c.ci_high)}"
                title += f", interval {interval}"
            cells.append(
                {
                    "text": cell_text(c), "interval": interval,
                    "state_class": c.state.replace(" ", "-"), "title": title,
                    "href": run_link(c.run_id) if c.run_id else "",
                }
            )  # fmt: skip
        low, high = r.mean_low, r.mean_high
        out.append(
            {
                "rank": r.rank, "model": r.model,
                "model_href": model_link(r.model) if model_link else "",
                "mean": _pct(r.mean),
                "interval": "—" if low is None or high is None else f"{_pct(low)}–{_pct(high)}",
                "cells": cells, "versus": versus_text(r),
                "tokens": f"{r.prompt_tokens + r.completion_tokens:,}",
                "cost": "no price" if r.cost is None else f"${r.cost:,.4f}",
            }
        )  # fmt: skip
    return out


def _viewer_model(model: str) -> str:
    return "/models/" + quote(model, safe="")


def leaderboard_html(
    board: Leaderboard,
    notes: Sequence[str],
    *,
    scope: str,
    page: int,
    page_size: int,
    href: PageHref,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """One page of the board (`page_size` models, ranked); `href(n)` is page n's address;
    `links`: (label, address) pairs shown above it (the viewer's: review each set named)."""
    pages = max(1, -(-len(board.rows) // page_size))
    page = min(max(1, page), pages)
    shown = board.rows[(page - 1) * page_size : page * page_size]
    return render(
        "leaderboard.html.j2",
        title="proctor · leaderboard", viewer=True, scope=scope, notes=list(notes),
        n_models=len(board.rows), tasks=list(board.tasks),
        conf=f"{board.confidence * 100:g} % CI",
        rows=board_rows(board, shown, run_href, _viewer_model), page=page, pages=pages,
        prev_href=href(page - 1) if page > 1 else "",
        next_href=href(page + 1) if page < pages else "", links=list(links),
    )  # fmt: skip


def leaderboard_report_html(
    board: Leaderboard, notes: Sequence[str], *, scope: str, run_link: RunHref
) -> str:
    """The board as a self-contained report.html (a set's, or `proctor leaderboard --html`):
    every model on one page, each task's cell a link to its run's report (`run_link`)."""
    return render(
        "leaderboard.html.j2",
        title=f"proctor · leaderboard {scope}".rstrip(), viewer=False, scope=scope,
        notes=list(notes), n_models=len(board.rows), tasks=list(board.tasks),
        conf=f"{board.confidence * 100:g} % CI", rows=board_rows(board, board.rows, run_link, None),
        page=1, pages=1, prev_href="", next_href="", links=[],
    )  # fmt: skip


def grid_html(
    run_id: str,
    task: str,
    models: Sequence[str],
    rows: Sequence[Mapping[str, object]],
    *,
    counts: tuple[int, int, int],
    disagree: bool,
    page: int,
    pages: int,
    href: Callable[[bool, int], str],
) -> str:
    """A page of the grid; `counts` is (rows shown in all pages, every item, items where the
    models disagree); `href(disagree, page)` a page's address."""
    shown, total, n_disagree = counts
    return render(
        "grid.html.j2",
        title=f"proctor · grid of {run_id}", viewer=True, run_id=run_id,
        run_href=run_href(run_id), task=task, models=list(models), rows=list(rows),
        disagree=disagree, shown=shown, total=total, n_disagree=n_disagree,
        all_href=href(False, 1), disagree_href=href(True, 1), page=page, pages=pages,
        prev_href=href(disagree, page - 1) if page > 1 else "",
        next_href=href(disagree, page + 1) if page < pages else "",
    )  # fmt: skip
