"""report.html in a real headless Chromium: it loads from file:// with no network, its charts
are drawn, its filters work, and no script hidden in model output runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from proctor.report import write_run_files
from support.browser import pwned, screenshot, severe_logs, wait_ready
from support.hostile import (
    CATEGORIES,
    CHINESE_REPLY,
    EVIL_MODEL,
    HOSTILE_REPLIES,
    LONG_REPLY,
    MODELS,
    N_SAMPLES,
    Run,
    expected_count,
)

PAGE = 50


@pytest.fixture
def loaded(browser: Any, hostile: Run, tmp_path: Path) -> Any:
    paths = write_run_files(tmp_path / "run", hostile.stats)
    report = next(p for p in paths if p.name == "report.html")
    severe_logs(browser)  # drop what earlier tests left
    browser.get(report.resolve().as_uri())
    wait_ready(browser)
    return browser


def count(driver: Any, selector: str) -> int:
    return int(driver.execute_script(f"return document.querySelectorAll({selector!r}).length"))


def choose(driver: Any, select_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, select_id)).select_by_value(value)


def shown_outcomes(driver: Any) -> list[str]:
    return list(
        driver.execute_script(
            "return Array.from(document.querySelectorAll('#sample-list > article.sample'))"
            ".map(a => a.getAttribute('data-outcome'))"
        )
    )


def test_page_loads_charts_render_and_nothing_runs(loaded: Any, tmp_path: Path) -> None:
    driver = loaded
    assert not pwned(driver)
    assert severe_logs(driver) == []
    assert driver.title.startswith("proctor · arithmetic")
    # ranking: one bar and one error bar per model; grouped bars; a heat map cell per pair
    assert count(driver, "svg.chart-ranking rect.bar") == len(MODELS)
    assert count(driver, "svg.chart-ranking .err") == len(MODELS)
    assert count(driver, "svg.chart-grouped rect.bar") >= len(MODELS) * len(CATEGORIES) - 1
    assert count(driver, "svg.chart-grouped .err") >= len(MODELS) * len(CATEGORIES) - 1
    assert count(driver, "svg.chart-heatmap g.cell") == len(MODELS) * len(CATEGORIES)
    assert count(driver, "svg.chart-stacked rect.bar") >= len(MODELS) * 2
    heights = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.chart-ranking rect.bar'))"
        ".map(r => r.getBoundingClientRect().width)"
    )
    assert all(w > 10 for w in heights), heights
    # the hostile model name and category are text in the page, not elements
    assert count(driver, "img") == 0 and count(driver, "body script") == 2
    text = driver.execute_script("return document.body.innerText")
    assert EVIL_MODEL in text
    assert "Bare vs calculator" not in text and "Size vs accuracy" not in text  # no data
    # the first page of the sample browser
    assert count(driver, "#sample-list > article.sample") == PAGE
    total = len(MODELS) * N_SAMPLES
    assert driver.find_element("id", "sample-count").text == f"{total} of {total} answers match"
    colours = screenshot(driver, tmp_path / "report.png")
    assert colours > 50


def test_filters_page_and_search(loaded: Any) -> None:
    driver = loaded
    correct = expected_count("correct")
    choose(driver, "f-outcome", "correct")
    assert driver.find_element("id", "sample-count").text.startswith(f"{correct} of ")
    assert shown_outcomes(driver) == ["correct"] * min(correct, PAGE)
    driver.find_element("id", "page-next").click()
    assert shown_outcomes(driver) == ["correct"] * (correct - PAGE)

    choose(driver, "f-model", "fake/bad")
    wanted = expected_count("correct", "fake/bad")
    assert shown_outcomes(driver) == ["correct"] * wanted

    driver.find_element("id", "f-reset").click()
    search = driver.find_element("id", "f-search")
    search.send_keys("最终答案")
    driver.implicitly_wait(0)
    from selenium.webdriver.support.ui import WebDriverWait

    chinese = sum(
        1
        for mi in range(len(MODELS))
        for i in range(N_SAMPLES)
        if HOSTILE_REPLIES[(i + mi) % len(HOSTILE_REPLIES)] == CHINESE_REPLY
        and not (mi == 2 and i == 5)
    )
    WebDriverWait(driver, 5).until(
        lambda d: d.find_element("id", "sample-count").text.startswith(f"{chinese} of ")
    )
    assert count(driver, "#sample-list > article.sample") == chinese
    assert not pwned(driver)


def test_hostile_replies_show_as_text(loaded: Any) -> None:
    driver = loaded
    choose(driver, "f-model", "fake/good")
    # open every answer on the page: each raw response must read back exactly as stored
    driver.execute_script(
        "document.querySelectorAll('#sample-list details.more').forEach(d => d.open = true)"
    )
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#sample-list dl.sample-fields'))"
        ".map(dl => { const dts = Array.from(dl.querySelectorAll('dt'));"
        " const i = dts.findIndex(dt => dt.textContent === 'raw response');"
        " return dl.querySelectorAll('dd')[i].textContent; })"
    )
    assert len(shown) == N_SAMPLES
    for reply in HOSTILE_REPLIES:
        assert reply in shown
    assert LONG_REPLY in shown
    assert (
        count(driver, "#sample-list img, #sample-list svg, #sample-list script, #sample-list a")
        == 0
    )
    assert not pwned(driver)
    assert severe_logs(driver) == []


def test_heat_map_cell_opens_its_samples(loaded: Any) -> None:
    driver = loaded
    cell = driver.find_element(
        "css selector", f'svg.chart-heatmap g.cell[data-filter-model="{MODELS[0]}"]'
    )
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click'))", cell)
    category = cell.get_attribute("data-filter-category")
    per_category = N_SAMPLES // len(CATEGORIES)
    assert driver.find_element("id", "sample-count").text.startswith(f"{per_category} of ")
    models = driver.execute_script(
        "return Array.from(document.querySelectorAll('#sample-list .model'))"
        ".map(n => n.textContent)"
    )
    assert set(models) == {MODELS[0]}
    assert category in CATEGORIES


def test_policy_stops_markup_that_got_in_anyway(loaded: Any) -> None:
    """Defence in depth: even HTML put into the page behind the escaping's back cannot run."""
    driver = loaded
    driver.execute_script(
        "document.body.insertAdjacentHTML('beforeend',"
        ' \'<img src=x onerror="window.__pwned=1"><svg onload="window.__pwned=1"></svg>\');'
        "const s = document.createElement('script'); s.textContent = 'window.__pwned=1';"
        "document.body.appendChild(s);"
    )
    time.sleep(0.3)
    assert not pwned(driver)
    assert any("Content Security Policy" in line for line in severe_logs(driver))
