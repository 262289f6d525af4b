"""The leaderboard as a written page (`leaderboard_report_html`: a set's report.html, `proctor
leaderboard --html`): every model on one page with each cell's interval, links made by the
caller, no viewer links; a model name that is markup stays text; in a real headless Chromium
from file:// it loads with no console error and no script of a name runs (screenshot)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from proctor.report.html.board_pages import leaderboard_report_html
from proctor.stats.leaderboard import TaskResult, build_leaderboard
from proctor.stats.metrics import Cell
from support.browser import pwned, screenshot, severe_logs

EVIL = "<script>window.__pwned=1</script>"


def _result(task: str, model: str, acc: float, run_id: str) -> TaskResult:
    return TaskResult(
        task=task, model=model, run_id=run_id, created_at="", grader_version="",
        state="complete", n_items=10,
        overall=Cell(n=10, correct=int(acc * 10), accuracy=acc, ci_low=acc / 2,
                     ci_high=min(1.0, acc * 1.5)),
        scores={f"{i}#0": float(i < acc * 10) for i in range(10)},
    )  # fmt: skip


def _page(tmp_path: Path) -> Path:
    models = [f"m{i}" for i in range(60)] + [EVIL]
    results = [_result(t, m, (i % 10) / 10, f"run-{t}") for i, m in enumerate(models)
               for t in ("arithmetic", "gsm8k")]  # fmt: skip
    results[0] = replace(results[0], state="calls failed")
    board = build_leaderboard(results[:-1])  # the last model has no gsm8k: missing
    html = leaderboard_report_html(
        board, ["a note"], scope="set-1", run_link=lambda r: f"../runs/{r}/report.html"
    )
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_every_model_on_one_page_with_intervals_and_given_links(tmp_path: Path) -> None:
    html = _page(tmp_path).read_text("utf-8")
    assert html.count("<tr data-model=") == 61  # no pages in a written report
    assert 'href="../runs/run-gsm8k/report.html"' in html
    assert "/models/" not in html and 'class="viewer"' not in html
    assert '<span class="ci">' in html and "missing" in html and "!" in html
    assert EVIL not in html and "&lt;script&gt;" in html


def test_the_page_in_a_browser(browser: Any, tmp_path: Path) -> None:
    driver = browser
    severe_logs(driver)
    driver.get(_page(tmp_path).resolve().as_uri())
    rows = driver.execute_script("return document.querySelectorAll('tr[data-model]').length")
    assert rows == 61
    assert not pwned(driver)
    assert severe_logs(driver) == []
    assert screenshot(driver, tmp_path / "leaderboard.png") > 8
