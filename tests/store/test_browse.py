"""`store/browse.py`, the viewer's SQL reads, against counts worked out from how the store was
generated (one in three answers wrong; item i's reply ends "Final answer: <i + 7, + 1 when
wrong>")."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.store import RunStore
from proctor.store.browse import NOT_GRADED, answer_page, item_answers, model_tallies, tallies
from support.big_store import make_big_store

MODELS = ("m/a", "m/b")
N = 90


def answer(i: int) -> str:
    return str(i + 7 + (i % 3 == 0))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("browse") / "results"
    make_big_store(path, N, MODELS, "20261201-010101-arithmetic-graded")
    make_big_store(path, 12, MODELS[:1], "20261201-020202-arithmetic-ungraded", graded=False)
    return path


@pytest.mark.parametrize(
    ("filters", "total"),
    [
        ({}, 2 * N),
        ({"model": "m/a"}, N),
        ({"model": "nobody"}, 0),
        ({"outcome": "wrong"}, 2 * (N // 3)),
        ({"outcome": "correct", "model": "m/b"}, N - N // 3),
        ({"outcome": NOT_GRADED}, 0),
        ({"outcome": "call_failed"}, 0),
        # replies are "…Final answer: <i + 7, + 1 when i % 3 == 0>": a substring match
        ({"text": "Final answer: 8"}, 2 * sum(answer(i).startswith("8") for i in range(N))),
        ({"text": "i000042"}, 2),  # found in the item, not the reply
        ({"text": "'; DROP TABLE records; --"}, 0),
    ],
)
def test_answer_page_filters(root: Path, filters: dict[str, str], total: int) -> None:
    with RunStore.open(root) as store:
        page = answer_page(store, "20261201-010101-arithmetic-graded", limit=1000, **filters)
    assert page.total == total == len(page.answers)


def test_paging_walks_the_paper_in_order(root: Path) -> None:
    seen = []
    with RunStore.open(root) as store:
        for offset in range(0, 2 * N, 7):
            page = answer_page(store, "20261201-010101-arithmetic-graded", offset=offset, limit=7)
            seen += [(a.position, a.record.model) for a in page.answers]
        beyond = answer_page(store, "20261201-010101-arithmetic-graded", offset=10_000)
    assert seen == [(i, m) for i in range(N) for m in MODELS]
    assert beyond.answers == [] and beyond.total == 2 * N


def test_ungraded_run_reads_as_not_graded(root: Path) -> None:
    run = "20261201-020202-arithmetic-ungraded"
    with RunStore.open(root) as store:
        page = answer_page(store, run, outcome=NOT_GRADED)
        (tally,) = tallies(store, [run])
        answers = item_answers(store, run, "i000003")
    assert page.total == 12
    assert all(a.score is None for a in page.answers)
    assert (tally.n_answers, tally.n_graded, tally.n_scored, tally.correct) == (12, 0, 0, 0)
    assert [a.record.model for a in answers] == ["m/a"]


def test_tallies_and_model_across_runs(root: Path) -> None:
    with RunStore.open(root) as store:
        counted = {(t.run_id, t.model): t for t in tallies(store)}
        across = model_tallies(store, "m/a")
    graded = counted[("20261201-010101-arithmetic-graded", "m/b")]
    assert (graded.n_answers, graded.correct, graded.n_scored) == (N, N - N // 3, N)
    assert sorted(t.run_id for t in across) == [
        "20261201-010101-arithmetic-graded",
        "20261201-020202-arithmetic-ungraded",
    ]
