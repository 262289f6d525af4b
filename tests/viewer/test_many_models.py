"""The viewer's pages for choosing between models, in a real headless Chromium: the runs list's
scores, a run's answers filtered on the server, one item's replies side by side, one model across
runs, and the progress of a run while its answers arrive."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.runs.grade import grade_run
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import Record, Usage
from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs, wait_text

from .conftest import MODELS, SAMPLES, N, Results, correct_count, make_results, serve


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """The two runs of conftest, both graded and stored: the model page reads stored grades."""
    results = make_results(tmp_path_factory.mktemp("many") / "results")
    with RunStore.open(results.path) as store:
        grade_run(store, results.run_ids[1], TASK)
    return results


@pytest.fixture(scope="module")
def viewer(graded: Results) -> Iterator[ViewerServer]:
    with serve(graded.path) as srv:
        yield srv


def texts(driver: Any, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def pct(correct: int, n: int) -> str:
    return f"{correct / n * 100:.1f} %"


def steady_right(i: int, run: int) -> bool:
    return not (i % 3 == 0 if run == 1 else i % 6 == 0)


def test_runs_scores_answers_and_item_side_by_side(
    browser: Any, viewer: ViewerServer, graded: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver = browser
    severe_logs(driver)
    driver.get(viewer.url)
    first = graded.run_ids[0]
    row = driver.find_element(By.XPATH, f"//tr[td/a[text()='{first}']]")
    scores = {
        li.get_attribute("data-model"): li.find_element(By.CSS_SELECTOR, ".score").text
        for li in row.find_elements(By.CSS_SELECTOR, "ul.scores li")
    }
    assert scores == {m: pct(correct_count(m, 1), N) for m in MODELS}

    # the answers, filtered by the server: wild's correct answers of run 1
    driver.get(viewer.url.rstrip("/") + f"/runs/{first}/answers")
    assert driver.find_element(By.ID, "answer-count").text == f"1–{len(MODELS) * N} of {2 * N}"
    Select(driver.find_element(By.NAME, "model")).select_by_value("fake/wild")
    Select(driver.find_element(By.NAME, "outcome")).select_by_value("correct")
    driver.find_element(By.CSS_SELECTOR, "form.filters button").click()
    WebDriverWait(driver, 10).until(lambda d: "outcome=correct" in d.current_url)
    wild = correct_count("fake/wild", 1)
    assert driver.find_element(By.ID, "answer-count").text == f"1–{wild} of {wild}"
    assert "outcome=correct" in driver.current_url
    items = texts(driver, "table.answers a.item-link")
    assert items == [s.id for i, s in enumerate(SAMPLES) if i % 4 == 0]

    # item q03 (index 3): steady is wrong in run 1 (3 % 3 == 0), wild answers something hostile
    driver.get(viewer.url.rstrip("/") + f"/runs/{first}/items/q03")
    cards = driver.find_elements(By.CSS_SELECTOR, "article.answer-card")
    assert [c.get_attribute("data-model") for c in cards] == list(MODELS)
    assert [c.get_attribute("data-outcome") for c in cards] == ["wrong", "wrong"]
    steady = cards[0]
    assert steady.find_element(By.CSS_SELECTOR, "pre.reply").text == "Final answer: 3"
    assert steady.find_element(By.CSS_SELECTOR, "code.rule").text == (
        "final_answer_line+integer_equal"
    )
    statements = steady.find_element(By.CSS_SELECTOR, "ul.rule-text").text
    assert TASK.rules["integer_equal"] in statements
    assert TASK.rules["final_answer_line"] in statements
    assert steady.find_element(By.CSS_SELECTOR, "code.extracted").text == "3"
    assert "103" in steady.find_element(By.CSS_SELECTOR, ".explanation").text
    assert "<" in cards[1].find_element(By.CSS_SELECTOR, "pre.reply").text  # shown as text
    assert not pwned(driver)
    screenshot(driver, tmp_path / "viewer-item.png")

    # the next item, one click away: q04 is right for both (4 % 3 != 0, 4 % 4 == 0)
    driver.find_element(By.CSS_SELECTOR, "nav a.next").click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith("/items/q04"))
    assert driver.current_url.endswith("/items/q04")
    assert texts(driver, "article.answer-card .badge") == ["correct", "correct"]
    assert severe_logs(driver) == []


def test_model_across_runs(
    browser: Any, viewer: ViewerServer, graded: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    severe_logs(driver)
    driver.get(viewer.url)
    driver.find_element(By.CSS_SELECTOR, "ul.scores li[data-model='fake/steady'] a").click()
    WebDriverWait(driver, 10).until(lambda d: "/models/" in d.current_url)
    assert driver.current_url.endswith("/models/fake%2Fsteady")
    rows = driver.find_elements(By.CSS_SELECTOR, "section[data-task=arithmetic] tbody tr")
    # newest first: run 2, then run 1
    assert [r.get_attribute("data-run") for r in rows] == list(reversed(graded.run_ids))
    accuracies = [r.find_element(By.CSS_SELECTOR, "td.accuracy").text for r in rows]
    assert accuracies == [pct(correct_count("fake/steady", run), N) for run in (2, 1)]
    for r in rows:
        low, high = (
            float(x) for x in r.find_element(By.CSS_SELECTOR, "td.interval").text.strip("[]")
            .split("–")
        )  # fmt: skip
        accuracy = float(r.find_element(By.CSS_SELECTOR, "td.accuracy").text.rstrip(" %"))
        assert low < accuracy < high
    screenshot(driver, tmp_path / "viewer-model.png")
    assert severe_logs(driver) == []


def test_live_progress_reads_the_store_as_it_fills(
    browser: Any, graded: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    root = tmp_path / "results"
    with RunStore.open(graded.path) as source:
        info = source.run_info(graded.run_ids[0])
    run_id = "live-run"
    with RunStore.open(root) as store:
        store.create_run(dataclasses.replace(info, run_id=run_id), SAMPLES, "fp-live", {})

    def answer(model: str, i: int) -> Record:
        right = model == "fake/steady" and steady_right(i, 1)
        return Record(
            run_id=run_id,
            model=model,
            sample_id=SAMPLES[i].id,
            status="ok",
            text=f"Final answer: {SAMPLES[i].target if right else i}",
            finish_reason="stop",
            usage=Usage(10, 5),
            latency_s=0.1,
            attempts=1,
            prompt_variant=info.prompt_variant,
            lang=info.lang,
        )

    def add(indices: range) -> None:
        with RunStore.open(root) as store:
            store.add_records([answer(m, i) for m in MODELS for i in indices])

    add(range(0, 6))
    driver = browser
    severe_logs(driver)
    with serve(root) as srv:
        driver.get(srv.url.rstrip("/") + f"/runs/{run_id}/progress")
        assert driver.find_element(By.ID, "run-done").text == f"12 of {2 * N}"
        assert driver.find_element(By.ID, "run-status").text == "running"
        add(range(6, N))
        wait_text(driver, "run-done", f"{2 * N} of {2 * N}")  # the page reloads meanwhile
        with RunStore.open(root) as store:
            grade_run(store, run_id, TASK)
            store.set_status(run_id, "complete")
        wait_text(driver, "run-status", "complete")
        accuracy = driver.find_element(
            By.CSS_SELECTOR, "tr[data-model='fake/steady'] td.accuracy"
        ).text
        assert accuracy == pct(correct_count("fake/steady", 1), N)
        # a finished run stops reloading itself
        assert driver.find_elements(By.CSS_SELECTOR, "meta[http-equiv=refresh]") == []
        screenshot(driver, tmp_path / "viewer-progress.png")
    assert severe_logs(driver) == []
