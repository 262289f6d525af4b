"""Review in a real headless Chromium: a reviewer grades 10 replies with the keyboard alone,
re-grades 5 of them blind later, and the drift page shows the self-agreement and kappa this test
computes itself from what it pressed; a blind side-by-side of three models, names hidden, whose
verdict lands on the model that gave the reply clicked."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.store import RunStore
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams, Prompt
from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs

from .conftest import SAMPLES, Results, index_of, make_results, serve

# What the reviewer presses on the 10 replies, and on the 5 blind re-grades (by position in the
# re-grade sample): two of the five are changed minds.
FIRST = "cwccwcwwcc"


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return make_results(tmp_path / "results")


@pytest.fixture
def server(results: Results) -> Iterator[ViewerServer]:
    with serve(results.path) as srv:
        yield srv


def press(driver: Any, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(keys).perform()


def current(driver: Any) -> tuple[str, str, str]:
    """(model, sample id, progress text) of the reply on the page."""
    from selenium.webdriver.common.by import By

    model = driver.find_element(By.CSS_SELECTOR, "#review-form input[name=model]")
    sample = driver.find_element(By.ID, "sample-id").text
    return model.get_attribute("value"), sample, driver.find_element(By.ID, "progress").text


def progress_text(driver: Any) -> str:
    """The progress line of the page now loaded ("" while none is), read in one script call so
    that a page being replaced cannot leave a stale element."""
    return str(
        driver.execute_script(
            "var p = document.getElementById('progress');"
            " return document.readyState === 'complete' && p ? p.textContent : '';"
        )
    )


def grade(driver: Any, key: str, note: str = "") -> tuple[str, str]:
    """Give the reply on the page a verdict by keyboard; the (model, sample) it was for."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    model, sample, progress = current(driver)
    if note:
        press(driver, "n")
        press(driver, note + Keys.ESCAPE)
    press(driver, key)
    WebDriverWait(driver, 15).until(lambda d: progress_text(d) not in ("", progress))
    return model, sample


def kappa(a: list[str], b: list[str]) -> float:
    """Cohen's kappa, written out here (not the product's) for two raters over the same items."""
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in set(a) | set(b))
    return (p_o - p_e) / (1 - p_e)


def test_grade_ten_by_keyboard_regrade_five_blind_and_see_the_drift(
    browser: Any, server: ViewerServer, results: Results, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    severe_logs(driver)
    run_id = results.run_ids[0]
    driver.get(f"{server.url}review/{run_id}?reviewer=ann")
    first: dict[tuple[str, str], str] = {}
    for i, key in enumerate(FIRST):
        first[grade(driver, key, note="looked twice" if i == 3 else "")] = key
    assert "10 of 48 reviewed" in current(driver)[2]
    screenshot(driver, tmp_path / "review-keyboard.png")
    with RunStore.open(results.path) as store:
        given = store.human_verdicts(run_id)
    assert [(v.model, v.sample_id) for v in given] == list(first)
    assert [v.verdict[0] for v in given] == list(FIRST)
    assert given[3].note == "looked twice" and not any(v.blind for v in given)

    driver.get(f"{server.url}review/{run_id}/regrade?reviewer=ann&n=5&seed=7")
    assert "0 of 5 reviewed" in current(driver)[2]
    shown = driver.find_element(By.TAG_NAME, "main").text
    assert "looked twice" not in shown  # blind: no earlier verdict, no earlier note
    earlier, again = [], []
    for i in range(5):
        before = first[(current(driver)[0], current(driver)[1])]
        key = before if i not in (1, 3) else ("w" if before == "c" else "c")
        grade(driver, key)
        earlier.append(before)
        again.append(key)
    assert "5 of 5 reviewed" in progress_text(driver)
    assert driver.find_element(By.ID, "queue-done").text == "nothing left to review in this queue"

    driver.get(f"{server.url}review/{run_id}/drift")
    row = driver.find_element(By.CSS_SELECTOR, "tr.drift-self[data-who=ann][data-scope=all]")
    text = row.find_element(By.CLASS_NAME, "agreement").text
    agree = sum(a == b for a, b in zip(earlier, again, strict=True))
    assert agree == 3
    assert text.startswith(
        f"{agree / 5 * 100:.1f} % ({agree} of 5) · κ {kappa(earlier, again):.2f}"
    )
    screenshot(driver, tmp_path / "review-drift.png")
    assert severe_logs(driver) == [] and not pwned(driver)


def three_models(results: Path) -> str:
    models = ("fake/alpha", "fake/beta", "fake/gamma")

    def script(model: str) -> Any:
        def reply(prompt: Prompt) -> str:
            i = index_of(prompt)
            return f"{model[5:]} thinks: Final answer: {int(SAMPLES[i].target) + len(model) % 3}"

        return reply

    plan = RunPlan(
        task=TASK, samples=SAMPLES[:4], dataset_hash="sha256:three", generator_version="test",
        models=models, variant="B", lang="en", params=GenerationParams(max_tokens=32),
        results_dir=results,
    )  # fmt: skip
    providers = {m: FakeProvider(m, script(m)) for m in models}
    return asyncio.run(execute(plan, providers=providers)).run_id  # type: ignore[arg-type]


def test_blind_side_by_side_of_three_models(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    results = tmp_path / "three"
    run_id = three_models(results)
    driver = browser
    severe_logs(driver)
    with serve(results) as server:
        driver.get(f"{server.url}review/{run_id}/side/q01?reviewer=ann")
        cards = driver.find_elements(By.CSS_SELECTOR, "article.blind-card")
        assert len(cards) == 3
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "fake/" not in page  # names hidden
        replies = [c.find_element(By.CSS_SELECTOR, "pre.reply").text for c in cards]
        owner = [r.split(" thinks")[0] for r in replies]  # the test knows whose reply is whose
        assert sorted(owner) == ["alpha", "beta", "gamma"]
        cards[1].find_element(By.CSS_SELECTOR, "input[name=note]").send_keys("the clearest")
        cards[1].find_element(By.CSS_SELECTOR, "button[value=correct]").click()
        badge = driver.find_element(By.CSS_SELECTOR, "article[data-slot='2'] .given")
        assert badge.text == "correct"
        screenshot(driver, tmp_path / "review-side-by-side.png")
        driver.get(f"{server.url}review/{run_id}/side/q01?reviewer=bob")
        bob = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "article pre.reply")]
        assert sorted(bob) == sorted(replies)
    with RunStore.open(results) as store:
        (v,) = store.human_verdicts(run_id)
    assert (v.model, v.sample_id, v.verdict, v.note) == (f"fake/{owner[1]}", "q01", "correct",
                                                         "the clearest")  # fmt: skip
    assert severe_logs(driver) == [] and not pwned(driver)
