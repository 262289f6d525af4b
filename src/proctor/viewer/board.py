"""The viewer's leaderboard (`/leaderboard`, `?set=SET`, `?run=RUN`…, `?page=`) and a run's grid
(`/runs/<run>/grid`, `?disagree=1`, `?page=`): read here, formatted in
`proctor.report.html.board_pages`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import quote, urlencode

from proctor.report.html.board_pages import grid_html, leaderboard_html
from proctor.report.html.viewer_pages import run_href, waiting_html
from proctor.runs.grade import stored_items
from proctor.runs.leaderboard import read_leaderboard
from proctor.stats.metrics import NOT_SCORED
from proctor.store import RunStore
from proctor.viewer.board_cache import BoardCache
from proctor.viewer.review_set import set_review_href

REFRESH_S = 2
"""How often a page waiting for its leaderboard reloads itself."""
BOARD_PAGE = 50
"""Models per page of the leaderboard: 500 models read as ten pages, best first."""
GRID_PAGE = 100
"""Items per page of the grid."""


def _page(query: Mapping[str, Sequence[str]]) -> int:
    raw = query.get("page", ["1"])[0]
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


def leaderboard_page(
    results_dir: Path, query: Mapping[str, Sequence[str]], boards: BoardCache | None = None
) -> str:
    """The board of the sets and runs named (all: the whole folder), read now, or as `boards`
    holds it for the store as it is (a page that reloads itself while it is being read)."""
    refs = [*query.get("set", []), *query.get("run", [])]
    reading = read_leaderboard(results_dir, refs) if boards is None else boards.reading(refs)
    if reading is None:
        return waiting_html(
            "leaderboard",
            "The leaderboard is being read: the first time a run is ranked, its cells are "
            "computed from every answer it has (then stored, and read from there). This page "
            "reloads itself until it is ready.",
            REFRESH_S,
        )

    def href(page: int) -> str:
        pairs = [("set", s) for s in query.get("set", [])] + [
            ("run", r) for r in query.get("run", [])
        ]
        return "/leaderboard?" + urlencode([*pairs, ("page", str(page))])

    reviews = [(f"review set {s}", set_review_href(s)) for s in query.get("set", [])]
    return leaderboard_html(
        reading.board, reading.notes, scope=", ".join(refs), page=_page(query),
        page_size=BOARD_PAGE, href=href, links=reviews,
    )  # fmt: skip


def _verdict(outcome: str) -> str:
    """What "disagree" compares: right, wrong in any way, or not graded at all."""
    if outcome == "correct":
        return "right"
    return "not scored" if outcome in NOT_SCORED or outcome == "missing" else "wrong"


def grid_href(run_id: str, disagree: bool = False, page: int = 1) -> str:
    query = urlencode([*([("disagree", "1")] if disagree else []), ("page", str(page))])
    return f"{run_href(run_id)}/grid?{query}"


def grid_page(store: RunStore, run_id: str, query: Mapping[str, Sequence[str]]) -> str:
    """One row per item (first reply of each), one column per model: the extract, the grade
    and its rule; `?disagree=1` keeps the items where the models are not all right, all wrong
    (in whatever way) or all ungraded."""
    info = store.run_info(run_id)
    items = [i for i in stored_items(store, run_id) if i.record.epoch == 0]
    by_sample: dict[str, dict[str, object]] = {}
    inputs: dict[str, str] = {}
    for i in items:
        inputs[i.sample.id] = i.sample.input
        by_sample.setdefault(i.sample.id, {})[i.record.model] = i.score
    rows = []
    for sample_id, grades in by_sample.items():
        cells = []
        outcomes = set()
        for model in info.models:
            score = grades.get(model)
            outcome = getattr(score, "outcome", "missing")
            outcomes.add(_verdict(outcome))
            cells.append(
                {
                    "outcome": outcome,
                    "extract": getattr(score, "extracted", None) or "—",
                    "rule": getattr(score, "rule", ""),
                }
            )
        href = f"{run_href(run_id)}/items/{quote(sample_id, safe='')}"
        rows.append(
            {"sample_id": sample_id, "input": inputs[sample_id][:160], "href": href,
             "cells": cells, "disagree": len(outcomes) > 1}
        )  # fmt: skip
    disagree = query.get("disagree", [""])[0] == "1"
    n_disagree = sum(bool(r["disagree"]) for r in rows)
    chosen = [r for r in rows if r["disagree"]] if disagree else rows
    pages = max(1, -(-len(chosen) // GRID_PAGE))
    page = min(_page(query), pages)
    return grid_html(
        run_id, info.task, info.models, chosen[(page - 1) * GRID_PAGE : page * GRID_PAGE],
        counts=(len(chosen), len(rows), n_disagree), disagree=disagree, page=page,
        pages=pages, href=lambda d, p: grid_href(run_id, d, p),
    )  # fmt: skip
