"""Review in the viewer over HTTP: a verdict is a POST that is stored only with this viewer's
Host, its Origin, the session token and the content hash of the reply shown; a cross-site POST,
a wrong Host, a missing token and a stale hash are refused and store nothing. The queue moves to
the next unreviewed reply and filters; the blind side-by-side hides names and shuffles per
reviewer; a blind re-grade hides the earlier verdict."""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import pytest

from proctor.store import RunStore
from proctor.viewer import HOST, ViewerServer

from .conftest import MODELS, Results, make_results, serve


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return make_results(tmp_path / "results")


@pytest.fixture
def server(results: Results) -> Iterator[ViewerServer]:
    with serve(results.path) as srv:
        yield srv


def request(
    server: ViewerServer,
    method: str,
    path: str,
    body: str = "",
    *,
    host: str | None = None,
    origin: str | None = "own",
) -> tuple[int, dict[str, str], str]:
    headers = {"Host": host or f"{HOST}:{server.port}"}
    if origin is not None:
        headers["Origin"] = f"http://{HOST}:{server.port}" if origin == "own" else origin
    if method == "POST":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        conn.request(method, path, body=body.encode("utf-8") if body else None, headers=headers)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8")
    finally:
        conn.close()


def form_of(page: str) -> dict[str, str]:
    """The hidden fields of the page's review form, as the browser would post them."""
    form = page[page.index('id="review-form"') :]
    return {
        unescape(m[1]): unescape(m[2])
        for m in re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
    }


def review_page(server: ViewerServer, run_id: str, query: str = "reviewer=ann") -> str:
    status, _, page = request(server, "GET", f"/review/{run_id}?{query}")
    assert status == 200, page[:300]
    return page


def stored(results: Results, run_id: str) -> int:
    with RunStore.open(results.path) as store:
        return len(store.human_verdicts(run_id))


def test_a_verdict_posted_as_the_page_says_is_stored_and_the_queue_moves_on(
    server: ViewerServer, results: Results
) -> None:
    run_id = results.run_ids[0]
    report = request(server, "GET", f"/runs/{run_id}")[2]
    assert f'<a href="/review/{run_id}">review</a>' in report and "Human verdicts" not in report
    assert 'name="reviewer"' in request(server, "GET", f"/review/{run_id}")[2]  # asks who
    page = review_page(server, run_id)
    assert "0 of 48 reviewed" in page
    fields = form_of(page)
    assert fields["token"] == server.token and fields["reviewer"] == "ann"
    first = fields["sample"]
    body = urlencode({**fields, "verdict": "wrong", "note": "off by one, <b>not</b> 7"})
    status, headers, _ = request(server, "POST", f"/review/{run_id}/verdict", body)
    assert status == 303 and headers["Location"] == fields["back"]
    with RunStore.open(results.path) as store:
        (v,) = store.human_verdicts(run_id)
    assert (v.sample_id, v.verdict, v.reviewer, v.note) == (first, "wrong", "ann",
                                                           "off by one, <b>not</b> 7")  # fmt: skip
    report = request(server, "GET", f"/runs/{run_id}")[2]  # cached before; shown anew now
    assert "Human verdicts" in report and "wrong · ann: off by one" in report
    item = request(server, "GET", f"/runs/{run_id}/items/{first}")[2]
    assert 'class="human">wrong · ann: off by one, &lt;b&gt;not&lt;/b&gt; 7<' in item
    after = review_page(server, run_id)
    assert "1 of 48 reviewed" in after and form_of(after)["sample"] != first
    assert "0 of 48 reviewed" in review_page(server, run_id, "reviewer=bob")  # each their own


@pytest.mark.parametrize(
    ("what", "change", "status"),
    [
        ("cross-site POST", {"origin": "http://evil.example"}, 403),
        ("no Origin", {"origin": None}, 403),
        ("wrong Host", {"host": "evil.example:80"}, 403),
        ("missing token", {"drop": "token"}, 403),
        ("wrong token", {"token": "guessed"}, 403),
        ("stale content hash", {"reply_hash": "0" * 64}, 409),
        ("another model's reply", {"model": MODELS[1] + "-not"}, 409),
        ("no verdict", {"verdict": "maybe"}, 400),
        ("a return address elsewhere", {"back": "https://evil.example/"}, 400),
    ],
)
def test_refused_posts_store_nothing(
    server: ViewerServer, results: Results, what: str, change: dict[str, str | None], status: int
) -> None:
    run_id = results.run_ids[0]
    fields = {**form_of(review_page(server, run_id)), "verdict": "correct", "note": ""}
    headers = {k: change.pop(k) for k in ("origin", "host") if k in change}
    fields.pop(str(change.pop("drop", "")), None)
    fields.update({k: str(v) for k, v in change.items()})
    got, _, body = request(
        server, "POST", f"/review/{run_id}/verdict", urlencode(fields),
        host=headers.get("host"), origin=headers.get("origin", "own"),
    )  # fmt: skip
    assert got == status, (what, body[:300])
    assert "refused" in body or got == 400
    assert stored(results, run_id) == 0


def test_a_form_post_elsewhere_is_not_taken(server: ViewerServer, results: Results) -> None:
    assert request(server, "POST", "/", "x=1")[0] == 501
    assert request(server, "POST", f"/runs/{results.run_ids[0]}", "x=1")[0] == 501


def test_the_queue_filters_by_model_outcome_and_rules_unsure(
    server: ViewerServer, results: Results
) -> None:
    run_id = results.run_ids[0]
    page = review_page(server, run_id, f"reviewer=ann&model={MODELS[0]}&outcome=wrong")
    assert "0 of 8 reviewed" in page and f'value="{MODELS[0]}"' in page
    assert 'data-outcome="wrong"' in page
    unsure = review_page(server, run_id, "reviewer=ann&unsure=1")
    assert re.search(r"0 of \d+ reviewed", unsure)
    assert 'data-outcome="correct"' not in unsure and 'data-outcome="wrong"' not in unsure


def test_blind_side_by_side_hides_names_and_shuffles_per_reviewer(
    server: ViewerServer, results: Results
) -> None:
    run_id = results.run_ids[0]
    orders = {}
    for reviewer in ("ann", "bob", "cy", "dee", "eve"):
        status, _, page = request(server, "GET", f"/review/{run_id}/side/q05?reviewer={reviewer}")
        assert status == 200
        assert not any(m in page for m in MODELS)  # no model name anywhere in the page
        replies = re.findall(r'<pre class="reply">(.*?)</pre>', page, re.DOTALL)
        assert len(replies) == 2
        orders[reviewer] = tuple(replies)
        again = request(server, "GET", f"/review/{run_id}/side/q05?reviewer={reviewer}")[2]
        assert re.findall(r'<pre class="reply">(.*?)</pre>', again, re.DOTALL) == replies
    assert len(set(orders.values())) == 2  # seeded per reviewer: both orders occur


def test_a_blind_regrade_hides_the_earlier_verdict(server: ViewerServer, results: Results) -> None:
    run_id = results.run_ids[0]
    for _ in range(3):
        fields = form_of(review_page(server, run_id))
        body = urlencode({**fields, "verdict": "correct", "note": "sure"})
        assert request(server, "POST", f"/review/{run_id}/verdict", body)[0] == 303
    status, _, regrade = request(server, "GET", f"/review/{run_id}/regrade?reviewer=ann&n=2")
    assert status == 200 and "0 of 2 reviewed" in regrade and "Blind re-grade" in regrade
    shown = regrade[regrade.index("<main>") : regrade.index("</main>")]
    assert "sure" not in shown and "correct" not in shown.replace("verdict-correct", "").replace(
        'value="correct"', ""
    ).replace("correct (c)", "")  # neither the earlier verdict nor its note
    fields = form_of(regrade)
    assert fields["blind"] == "1"
    body = urlencode({**fields, "verdict": "wrong", "note": ""})
    assert request(server, "POST", f"/review/{run_id}/verdict", body)[0] == 303
    assert "1 of 2 reviewed" in request(server, "GET", fields["back"])[2]
    drift = request(server, "GET", f"/review/{run_id}/drift")[2]
    assert "0.0 % (0 of 1)" in drift
