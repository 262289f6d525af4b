"""The viewer's leaderboard and grid (`/leaderboard`, `/runs/<run>/grid`): served over HTTP with
the board's own numbers and every item's grades; in a real headless Chromium, with screenshots,
the grid's "where they disagree" filter keeps exactly the items the models were graded apart on,
and a cell's item is a click away. Model output never runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proctor.runs.leaderboard import read_leaderboard
from proctor.store import RunStore
from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs
from support.viewer_http import get

from .conftest import MODELS, N, Results
from .test_browser import count


def _disagreeing(results: Results) -> int:
    """Items of run 1 where the models' stored grades are not all right, all wrong or all
    ungraded (read from the scores table, not from the page)."""
    with RunStore.open(results.path) as store:
        scores = store.scores(results.run_ids[0])

    def verdict(outcome: str) -> str:
        return (
            "right"
            if outcome == "correct"
            else ("not scored" if outcome in ("unscored", "call_failed") else "wrong")
        )

    by_item: dict[str, set[str]] = {}
    for (_, sample_id, epoch), score in scores.items():
        if epoch == 0:
            by_item.setdefault(sample_id, set()).add(verdict(score.outcome))
    return sum(len(v) > 1 for v in by_item.values())


def loaded(driver: Any) -> None:
    """Until the page is loaded (these pages run no script: they are plain tables)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def test_leaderboard_page_has_the_boards_numbers(server: ViewerServer, results: Results) -> None:
    page = get(server, "/leaderboard")
    board = read_leaderboard(results.path).board
    for row in board.rows:
        assert f'data-model="{row.model}"' in page
        assert f"{row.mean * 100:.1f} %" in page  # type: ignore[operator]
    assert page.count('<th class="task">') == len(board.tasks)
    one = get(server, f"/leaderboard?run={results.run_ids[0]}")
    assert one.count("<tr data-model=") == len(MODELS)


def test_grid_rows_and_disagreement(server: ViewerServer, results: Results) -> None:
    run = results.run_ids[0]
    page = get(server, f"/runs/{run}/grid")
    assert page.count("<tr data-item=") == N
    assert page.count('<td class="cell outcome-') == N * len(MODELS)
    only = get(server, f"/runs/{run}/grid?disagree=1")
    assert only.count("<tr data-item=") == _disagreeing(results) > 0
    assert "<script>window.__pwned" not in page


def test_browser_leaderboard_and_grid(
    browser: Any, server: ViewerServer, results: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    severe_logs(driver)
    driver.get(server.url + "leaderboard")
    loaded(driver)
    assert count(driver, "table.leaderboard tbody tr") == len(MODELS)
    assert screenshot(driver, tmp_path / "leaderboard.png") > 2
    assert not pwned(driver)

    run = results.run_ids[0]
    driver.get(server.url + f"runs/{run}/grid")
    loaded(driver)
    assert count(driver, "table.answer-grid tbody tr") == N
    assert screenshot(driver, tmp_path / "grid.png") > 2
    driver.find_element(By.ID, "where-they-disagree").click()
    loaded(driver)
    assert count(driver, "table.answer-grid tbody tr") == _disagreeing(results)
    assert count(driver, "table.answer-grid tbody tr.disagree") == _disagreeing(results)
    assert screenshot(driver, tmp_path / "grid-disagree.png") > 2
    driver.find_element(By.CSS_SELECTOR, "a.item-link").click()
    loaded(driver)
    assert "/items/" in driver.current_url
    assert not pwned(driver)
    assert not severe_logs(driver)
