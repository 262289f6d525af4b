"""`proctor view` in a real headless Chromium: runs list → a run's report → its samples →
a comparison of the two runs, with nothing from model output ever running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs, wait_ready

from .conftest import MODELS, N, Results, correct_count


def count(driver: Any, selector: str) -> int:
    return int(driver.execute_script(f"return document.querySelectorAll({selector!r}).length"))


def test_runs_report_samples_compare(
    browser: Any, server: ViewerServer, results: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver = browser
    severe_logs(driver)
    driver.get(server.url)
    links = driver.find_elements(By.CSS_SELECTOR, "a.run-link")
    assert sorted(link.text for link in links) == sorted(results.run_ids)

    # a run's report, reached by clicking its link
    first = next(link for link in links if link.text == results.run_ids[0])
    first.click()
    wait_ready(driver)
    assert driver.current_url.endswith("/runs/" + results.run_ids[0])
    assert count(driver, "svg.chart-ranking rect.bar") == len(MODELS)
    assert count(driver, "svg.chart-heatmap g.cell") == len(MODELS) * 3
    assert count(driver, "#sample-list > article.sample") == len(MODELS) * N
    assert not pwned(driver)

    # its sample browser, filtered
    driver.find_element(By.LINK_TEXT, "sample browser").click()
    wait_ready(driver)
    Select(driver.find_element(By.ID, "f-outcome")).select_by_value("correct")
    Select(driver.find_element(By.ID, "f-model")).select_by_value("fake/wild")
    wild = correct_count("fake/wild", 1)
    assert count(driver, "#sample-list > article.sample") == wild
    Select(driver.find_element(By.ID, "f-outcome")).select_by_index(0)
    driver.find_element(By.ID, "f-search").send_keys("window.__pwned")
    WebDriverWait(driver, 5).until(
        lambda d: (
            "of" in d.find_element(By.ID, "sample-count").text
            and count(d, "#sample-list > article.sample") < N
        )
    )
    assert count(driver, "#sample-list > article.sample") > 0
    driver.execute_script(
        "document.querySelectorAll('#sample-list details.more').forEach(d => d.open = true)"
    )
    assert "<script>window.__pwned=1</script>" in driver.execute_script(
        "return document.getElementById('sample-list').textContent"
    )
    assert not pwned(driver)
    screenshot(driver, tmp_path / "viewer-samples.png")

    # compare, through the runs list's form
    driver.get(server.url)
    Select(driver.find_element(By.NAME, "a")).select_by_value(results.run_ids[0])
    Select(driver.find_element(By.NAME, "b")).select_by_value(results.run_ids[1])
    driver.find_element(By.CSS_SELECTOR, "form.compare button").click()
    WebDriverWait(driver, 10).until(lambda d: "/compare?" in d.current_url)
    rows = driver.find_elements(By.CSS_SELECTOR, "table.compare tr.model")
    assert [r.find_element(By.CSS_SELECTOR, "td").text for r in rows] == list(MODELS)
    steady = rows[0].find_elements(By.CSS_SELECTOR, "td")
    gained = correct_count("fake/steady", 2) - correct_count("fake/steady", 1)
    assert steady[5].text == f"{gained / N * 100:+.1f}"
    assert count(driver, "svg.chart-grouped rect.bar") == 2 * len(MODELS)
    assert count(driver, "table.flips tbody tr") == gained
    assert not pwned(driver)
    assert severe_logs(driver) == []
    screenshot(driver, tmp_path / "viewer-compare.png")
