"""A dialogue's and a workflow's run page in `proctor view` (and their report.html): every turn
with its prompt, reply, facts read and checks; every workflow step with its tool call, output,
tokens and time, and the budget line; no empty "0 of 0 answers" browser. The runs are made
through the CLI; the pages are read over HTTP, then in headless Chromium with a screenshot of
each (set PROCTOR_SHOTS_DIR to keep them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.store import RunStore
from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs
from support.replayed_run import proctor
from support.viewer_http import get, serving

REPLY = "Receivable days: 120 <img src=x onerror=window.__pwned=1>"


@pytest.fixture(scope="module")
def turn_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(results, the dialogue run's id, the workflow run's id)."""
    results = tmp_path_factory.mktemp("turns") / "results"
    done = proctor("dialogue", "esg-acme-en", "-m", f"fake/const:{REPLY}", "-r", results)
    assert done.returncode == 0, done.stderr[-2000:]
    done = proctor("workflow", "market-brief-zh", "--replay", "-m", "fake/const:x", "-r", results)
    assert done.returncode == 6, done.stderr[-2000:]  # its outputs fail their checks
    with RunStore.open(results) as store:
        runs = {r.task: r.run_id for r in store.list_runs()}
    return results, runs["dialogue"], runs["workflow"]


@pytest.fixture(scope="module")
def viewer(turn_runs: tuple[Path, str, str]) -> Iterator[ViewerServer]:
    with serving(turn_runs[0]) as server:
        yield server


def test_the_pages_hold_every_turn_over_http(
    viewer: ViewerServer, turn_runs: tuple[Path, str, str]
) -> None:
    _, dialogue, workflow = turn_runs
    page = get(viewer, f"/runs/{dialogue}")
    assert page.count('<article class="turn">') == 4 and "0 of 0" not in page
    assert "Receivable days: 120 &lt;img src=x onerror=window.__pwned=1&gt;" in page
    assert "acme.receivable_days = 120" in page and "missed</b> acme.margin_gap" in page
    page = get(viewer, f"/runs/{workflow}")
    assert page.count('<article class="turn">') == 4 and "0 of 0" not in page
    assert "budget: 29 of 2,000 tokens · 2 of 2 tool calls · 0.0 of 300 s wall time" in page
    assert "doc_search({&#34;query&#34;: &#34;星河科技&#34;})" in page


def loaded(driver: Any, url: str) -> None:
    """Open `url` and wait until it is loaded (a turn run's page has no sample browser)."""
    from selenium.webdriver.support.ui import WebDriverWait

    severe_logs(driver)  # forget what earlier pages logged
    driver.get(url)
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def texts(driver: Any, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def test_a_dialogue_page_in_the_browser(
    browser: Any, viewer: ViewerServer, turn_runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    driver = browser
    loaded(driver, f"{viewer.url}/runs/{turn_runs[1]}")
    assert len(texts(driver, "article.turn")) == 4
    assert texts(driver, "article.turn pre.reply") == [REPLY] * 4  # shown as text, never run
    prompts = texts(driver, "article.turn pre.prompt")
    assert len(prompts) == 4 and "receivable turnover in days" in prompts[0]
    assert "acme.receivable_days = 120" in texts(driver, "article.turn ul.facts")[0]
    checks = " ".join(texts(driver, "article.turn ul.checks"))
    assert "met acme.receivable_days = 120" in checks and "missed acme.margin_gap" in checks
    assert not pwned(driver) and not texts(driver, "#sample-count")
    assert severe_logs(driver) == []  # no script error, no blocked content
    driver.execute_script("document.getElementById('transcript-1').scrollIntoView()")
    screenshot(driver, tmp_path / "dialogue-run.png")


def test_a_workflow_page_in_the_browser(
    browser: Any, viewer: ViewerServer, turn_runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    driver = browser
    loaded(driver, f"{viewer.url}/runs/{turn_runs[2]}")
    steps = texts(driver, "article.turn h3")
    assert steps == ["step 1 · news", "step 2 · growth", "step 3 · sentiment", "step 4 · swot"]
    calls = texts(driver, "article.turn pre.tool-call")
    assert calls == ['doc_search({"query": "星河科技"})',
                     'calculator({"expression": "(56.8 - 49.2) / 49.2 * 100"})']  # fmt: skip
    metas = texts(driver, "article.turn p.muted")
    assert metas[2].startswith("model · 15 tokens · ") and metas[2].endswith(" s")
    (budget,) = texts(driver, "p.budget")
    assert budget.startswith("budget: 29 of 2,000 tokens · 2 of 2 tool calls · ")
    assert "failed check: swot" in " ".join(texts(driver, "ul.problems"))
    assert severe_logs(driver) == []
    driver.execute_script("document.getElementById('transcript-1').scrollIntoView()")
    screenshot(driver, tmp_path / "workflow-run.png")
