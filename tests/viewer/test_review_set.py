"""Review over an eval set in the viewer (`/review/set/<set>`): one queue across the set's runs,
filtered as a run's queue is plus by task; each item's form posts to its own run's
`/review/<run>/verdict` (the one write path, with every check) and comes back to the set's
queue; the leaderboard of a set links to it."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from proctor.calling.retry import RetryPolicy
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.store import sets as sets_table
from proctor.tasks.arithmetic import TASK
from proctor.types import GenerationParams
from proctor.viewer import ViewerServer
from support.browser import pwned, screenshot, severe_logs

from .conftest import MODELS, SAMPLES, make_results, script, serve
from .test_review import form_of, request

SUMS = SAMPLES[:6]
"""The second task's items: fake/steady is wrong on q00 only (run 2's script)."""


@dataclass(frozen=True)
class SetResults:
    path: Path
    set_id: str
    arithmetic: str
    sums: str


def _sums_run(root: Path) -> str:
    plan = RunPlan(
        task=dataclasses.replace(TASK, name="sums"), samples=SUMS,
        dataset_hash="sha256:viewer-set-test", generator_version="test", models=MODELS,
        variant="B", lang="en", params=GenerationParams(timeout_s=5.0, max_tokens=64),
        results_dir=root, calling=Calling(retry=RetryPolicy(max_attempts=1)),
    )  # fmt: skip
    providers = {m: FakeProvider(m, script(m, 2)) for m in MODELS}
    return asyncio.run(execute(plan, providers=providers)).run_id  # type: ignore[arg-type]


@pytest.fixture
def results(tmp_path: Path) -> SetResults:
    root = tmp_path / "results"
    arithmetic = make_results(root).run_ids[0]
    sums = _sums_run(root)
    with RunStore.open(root) as store:
        set_id = sets_table.create_set(
            store, "week", "fp", {"models": list(MODELS)}, ["arithmetic", "sums"]
        )
        sets_table.set_member_run(store, set_id, 0, arithmetic)
        sets_table.set_member_run(store, set_id, 1, sums)
    return SetResults(root, set_id, arithmetic, sums)


@pytest.fixture
def server(results: SetResults) -> Iterator[ViewerServer]:
    with serve(results.path) as srv:
        yield srv


def set_page(server: ViewerServer, path: str) -> str:
    status, _, page = request(server, "GET", path)
    assert status == 200, page[:300]
    return page


def shown_run(page: str) -> str:
    found = re.search(r'<code id="item-run">([^<]+)</code>', page)
    assert found, "no item shown"
    return found[1]


def verdicts(results: SetResults, run_id: str) -> list[tuple[str, str, str]]:
    with RunStore.open(results.path) as store:
        return [(v.model, v.sample_id, v.verdict) for v in store.human_verdicts(run_id)]


def test_the_set_queue_walks_both_runs_and_stores_each_verdict_in_its_own_run(
    server: ViewerServer, results: SetResults
) -> None:
    queue = f"/review/set/{results.set_id}?reviewer=ann&model={MODELS[0]}&outcome=wrong"
    page = set_page(server, queue)
    assert "0 of 9 reviewed" in page  # arithmetic: 8 of steady's replies wrong; sums: 1
    seen: list[tuple[str, str]] = []
    while 'id="queue-done"' not in page:
        run_id, fields = shown_run(page), form_of(page)
        action = re.search(r'<form method="post" action="([^"]+)"', page)
        assert action and action[1] == f"/review/{run_id}/verdict"  # the run's own write path
        assert fields["model"] == MODELS[0] and 'data-outcome="wrong"' in page
        body = urlencode({**fields, "verdict": "wrong", "note": ""})
        status, headers, _ = request(server, "POST", action[1], body)
        assert status == 303 and headers["Location"] == fields["back"]
        assert fields["back"].startswith(f"/review/set/{results.set_id}?")
        seen.append((run_id, fields["sample"]))
        page = set_page(server, headers["Location"])
        assert f"{len(seen)} of 9 reviewed" in page
    assert [r for r, _ in seen] == [results.arithmetic] * 8 + [results.sums]
    wrong_a = [(MODELS[0], s, "wrong") for r, s in seen if r == results.arithmetic]
    assert verdicts(results, results.arithmetic) == wrong_a
    assert verdicts(results, results.sums) == [(MODELS[0], "q00", "wrong")]
    assert sorted(s for _, s, _ in wrong_a) == [f"q{i:02d}" for i in range(0, 24, 3)]


def test_the_set_queue_filters_by_task_kind_and_rules_unsure_and_sums_up_per_task(
    server: ViewerServer, results: SetResults
) -> None:
    base = f"/review/set/{results.set_id}?reviewer=ann"
    page = set_page(server, base)
    assert "0 of 60 reviewed" in page and shown_run(page) == results.arithmetic
    rows = re.findall(r'<tr data-task="([^"]+)">.*?class="task-progress">([^<]+)<', page)
    assert rows == [("arithmetic", "0 of 48"), ("sums", "0 of 12")]
    sums = set_page(server, base + "&task=sums")
    assert "0 of 12 reviewed" in sums and shown_run(sums) == results.sums
    assert '<strong id="item-task">sums</strong>' in sums and 'name="task" value="sums"' in sums
    kind = set_page(server, base + "&kind=more&task=sums")  # q02, q05: kind "more"
    assert "0 of 4 reviewed" in kind and form_of(kind)["sample"] == "q02"
    unsure = set_page(server, base + "&unsure=1")
    assert 'data-outcome="correct"' not in unsure and 'data-outcome="wrong"' not in unsure
    none = set_page(server, base + "&task=nosuch")
    assert "0 of 0 reviewed" in none and 'id="queue-done"' in none
    assert 'id="review-form"' not in none
    fields = form_of(sums)
    body = urlencode({**fields, "verdict": "correct", "note": ""})
    assert request(server, "POST", f"/review/{results.sums}/verdict", body)[0] == 303
    after = set_page(server, base)
    rows = re.findall(r'<tr data-task="([^"]+)">.*?class="task-progress">([^<]+)<', after)
    assert rows == [("arithmetic", "0 of 48"), ("sums", "1 of 12")]
    assert "1 of 60 reviewed" in after


@pytest.mark.parametrize(
    ("what", "change", "status"),
    [
        ("cross-site POST", {"origin": "http://evil.example"}, 403),
        ("wrong Host", {"host": "evil.example:80"}, 403),
        ("missing token", {"drop": "token"}, 403),
        ("stale content hash", {"reply_hash": "0" * 64}, 409),
        ("a return address elsewhere", {"back": "//evil.example/review/set/x"}, 400),
        ("a header in the return address", {"back": "/review/set/x\r\nSet-Cookie: a=1"}, 400),
    ],
)
def test_a_refused_post_from_the_set_queue_stores_nothing(
    server: ViewerServer, results: SetResults, what: str, change: dict[str, str], status: int
) -> None:
    page = set_page(server, f"/review/set/{results.set_id}?reviewer=ann&task=sums")
    run_id = shown_run(page)
    fields = {**form_of(page), "verdict": "correct", "note": ""}
    headers = {k: change.pop(k) for k in ("origin", "host") if k in change}
    fields.pop(change.pop("drop", ""), None)
    fields.update(change)
    got, _, body = request(
        server, "POST", f"/review/{run_id}/verdict", urlencode(fields),
        host=headers.get("host"), origin=headers.get("origin", "own"),
    )  # fmt: skip
    assert got == status, (what, body[:300])
    assert verdicts(results, results.sums) == [] and verdicts(results, results.arithmetic) == []


def test_a_set_is_found_by_name_asks_who_reviews_and_the_leaderboard_links_to_it(
    server: ViewerServer, results: SetResults
) -> None:
    start = set_page(server, "/review/set/week")
    assert f'action="/review/set/{results.set_id}"' in start and "Review set" in start
    board = set_page(server, f"/leaderboard?set={results.set_id}")
    assert f'class="set-review" href="/review/set/{results.set_id}"' in board
    assert request(server, "GET", "/review/set/no-such-set?reviewer=ann")[0] == 404
    assert request(server, "GET", f"/review/set/{results.set_id}/x?reviewer=ann")[0] == 404
    assert request(server, "POST", f"/review/set/{results.set_id}/verdict", "x=1")[0] == 501


def test_a_reviewer_grades_a_set_by_keyboard_across_both_runs(
    browser: Any, server: ViewerServer, results: SetResults, tmp_path: Path
) -> None:
    """In headless Chromium: the set's queue of fake/steady's wrong replies (8 in arithmetic,
    1 in sums) graded with the keys alone; each verdict lands in the run its item came from."""
    from selenium.webdriver.common.by import By

    from .test_review_browser import grade, progress_text

    driver = browser
    severe_logs(driver)
    driver.get(f"{server.url}review/set/{results.set_id}?reviewer=ann&model={MODELS[0]}"
               "&outcome=wrong")  # fmt: skip
    runs = []
    for key in "cwcwcwcwc":
        runs.append(driver.find_element(By.ID, "item-run").text)
        grade(driver, key)
    assert "9 of 9 reviewed" in progress_text(driver)
    assert driver.find_elements(By.ID, "queue-done")
    screenshot(driver, tmp_path / "review-set.png")
    assert runs == [results.arithmetic] * 8 + [results.sums]
    with RunStore.open(results.path) as store:
        assert [v.verdict[0] for v in store.human_verdicts(results.arithmetic)] == list("cwcwcwcw")
        (last,) = store.human_verdicts(results.sums)
    assert (last.model, last.sample_id, last.verdict) == (MODELS[0], "q00", "correct")
    assert severe_logs(driver) == [] and not pwned(driver)
