"""`runs/board_cells.py`: a run's leaderboard cells are what the report's own statistics make
of its stored answers (`summarize`, `completeness`, `ledger`); a report stores them made from
its statistics, the very rows computed from the answers, without reading the answers again
(unless other grades than the stored ones count, or another writer changed the store since);
a re-grade makes them again; and a board whose cells are stored reads no answer (the store's
side: tests/store/test_board_cells.py)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.runs.board_cells import RECIPE, run_cells
from proctor.runs.grade import StoredItems, stored_items
from proctor.runs.leaderboard import read_leaderboard
from proctor.runs.report import run_statistics, write_report
from proctor.stats.completeness import completeness
from proctor.stats.cost import PriceTable, ledger
from proctor.stats.metrics import NOT_SCORED, summarize
from proctor.store import RunStore
from proctor.store import board_cells as cells_table
from proctor.store.board_cells import NO_MARK, RIGHT, WRONG
from proctor.store.human_verdicts import HumanVerdict, reply_hash
from proctor.tasks.registry import get_task
from proctor.types import GenerationParams, Record, RunInfo, Sample, Score, Usage

RUN = "20261201-010101-arithmetic-cells"
MODELS = ("m/plain", "m/epochs", "m/failing", "m/never")
"""One answer each; two epochs (clustered intervals); failed calls, calls never made, unscored
and ungraded answers, reused and batched ones; a model with nothing stored."""


def _record(model: str, sample: str, epoch: int = 0, **kw: object) -> Record:
    fields: dict[str, object] = dict(
        run_id=RUN, model=model, sample_id=sample, status="ok", text="Final answer: 1",
        finish_reason="stop", usage=Usage(30, 9), latency_s=0.1, attempts=1,
        prompt_variant="B", lang="en", epoch=epoch,
    )  # fmt: skip
    fields.update(kw)
    return Record(**fields)  # type: ignore[arg-type]


def make_store(root: Path, epochs: tuple[int, ...] = (0, 1)) -> None:
    samples = [Sample(id=f"s{i}", input=f"{i}", target=str(i)) for i in range(8)]
    info = RunInfo(
        run_id=RUN, task="arithmetic", models=MODELS, dataset_hash="sha256:x", dataset_size=8,
        generator_version="t", prompt_variant="B", lang="en",
        created_at="2026-12-01T01:01:01+00:00", params=GenerationParams(), seed=None,
    )  # fmt: skip
    records: list[Record] = []
    scores: list[tuple[str, str, int, Score]] = []

    def grade(r: Record, outcome: str) -> None:
        scores.append((r.model, r.sample_id, r.epoch, Score(outcome, "t", "")))  # type: ignore[arg-type]

    for i, s in enumerate(samples):
        reused, batch = "old-run" if i == 2 else "", "b1" if i in (3, 4) else ""
        usage = Usage(None if i == 5 else 30, 9)
        r = _record("m/plain", s.id, cached_from=reused, batch_id=batch, usage=usage)
        records.append(r)
        grade(r, ("correct", "wrong", "unscored", "correct")[i % 4])
        for epoch in epochs:
            r = _record("m/epochs", s.id, epoch)
            records.append(r)
            grade(r, "correct" if (i + epoch) % 3 else "wrong")
        if i < 6:  # two answers never stored: incomplete
            failed = i in (1, 2)
            r = _record(
                "m/failing", s.id, status="call_failed" if failed else "ok",
                error="CircuitOpen: breaker open" if i == 2 else "Transient: refused" if failed
                else "",
            )  # fmt: skip
            records.append(r)
            if i != 4:  # one answer stored but never graded
                grade(r, "call_failed" if failed else "correct")
    with RunStore.open(root) as store:
        store.create_run(info, samples, "fp", {})
        store.add_records(records)
        store.save_scores(RUN, scores, "arithmetic/2")
        store.set_status(RUN, "complete")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    make_store(tmp_path / "results")
    return tmp_path / "results"


def test_cells_are_what_the_reports_statistics_make_of_the_answers(root: Path) -> None:
    prices = PriceTable({})
    with RunStore.open(root) as store:
        cells = run_cells(store, RUN)
        items = stored_items(store, RUN)
    metrics = {m.model: m for m in summarize(items, MODELS, tiers=None).models}
    states = {m.model: m for m in completeness(items, MODELS, 8).models}
    spent = {x.model: x for x in ledger(items, prices, list(MODELS))}
    assert cells.grader_version == "arithmetic/2" and set(cells.models) == set(MODELS)
    for model in MODELS:
        got, m, state = cells.models[model], metrics[model], states[model]
        assert got.n_items == m.n_items and got.overall == m.overall
        assert (got.not_asked, got.failed) == (state.not_asked, state.failed)
        live_and_batched = got.prompt_tokens + got.batch_prompt_tokens
        assert live_and_batched == spent[model].prompt_tokens
        assert got.completion_tokens + got.batch_completion_tokens == (
            spent[model].completion_tokens
        )
        expected = {
            f"{i.sample.id}#{i.record.epoch}": RIGHT if i.score.outcome == "correct" else WRONG
            for i in items
            if i.record.model == model and i.score.outcome not in NOT_SCORED
        }
        marks = {k: v for k, v in zip(cells.items, got.marks, strict=True) if v != NO_MARK}
        assert marks == expected
    # what the fixture is made of, so that the comparisons above compare something
    assert metrics["m/epochs"].n_scored == 16 and cells.models["m/never"].n_items == 0
    assert cells.models["m/failing"].not_asked == 1 and cells.models["m/failing"].failed == 1
    assert cells.models["m/plain"].batch_prompt_tokens == 60
    assert cells.models["m/plain"].prompt_tokens == 30 * 4  # one reused, one unknown
    assert metrics["m/plain"].n_scored == 6


def test_a_regrade_drops_the_cells_and_the_new_ones_have_the_new_grades(root: Path) -> None:
    with RunStore.open(root) as store:
        before = run_cells(store, RUN)
        store.add_scores(RUN, [("m/plain", "s1", 0, Score("correct", "t", ""))])  # was wrong
        assert cells_table.read(store, RUN, RECIPE) is None
        after = run_cells(store, RUN)
    assert after.models["m/plain"].overall.correct == before.models["m/plain"].overall.correct + 1
    assert after.models["m/epochs"] == before.models["m/epochs"]


READERS_OF_EVERY_ANSWER = (
    "records", "answer_pages", "answer_windows", "answer_page", "count_records", "ungraded",
    "graded_items", "graded_item_stream", "scores", "failed",
)  # fmt: skip


def test_a_board_whose_cells_are_stored_reads_no_answer(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Structural, not timed: once the cells are stored, every reader of a run's answers or
    grades (the store's, and the cells' own reading of the answers) raises, and the board is
    still read, the same as before."""
    first = read_leaderboard(root)  # computes and stores the cells
    for name in READERS_OF_EVERY_ANSWER:
        monkeypatch.setattr(RunStore, name, _refuse(name))
    monkeypatch.setattr(cells_table, "_marks", _refuse("the cells' reading of the answers"))
    again = read_leaderboard(root)
    assert again.board.to_json() == first.board.to_json() and again.notes == first.notes
    assert {r.model for r in again.board.rows} == set(MODELS)


def test_a_board_without_cells_reads_the_answers_only_for_its_cells(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RunStore.open(root) as store:
        before = [x.model for x in summarize(stored_items(store, RUN), MODELS).models]
    for name in READERS_OF_EVERY_ANSWER:
        monkeypatch.setattr(RunStore, name, _refuse(name))
    board = read_leaderboard(root).board  # the cells' own reading only
    assert sorted(r.model for r in board.rows) == sorted(before)
    with RunStore.open(root) as store:
        assert cells_table.missing(store, [RUN], RECIPE) == []


def _rows(root: Path) -> list[tuple[object, ...]]:
    """The run's stored cells as they are in the tables (`computed_at` left out), or []."""
    db = sqlite3.connect(root / "proctor.db")
    try:
        head = db.execute(
            "SELECT run_id, grader_version, items, recipe FROM board_runs WHERE run_id = ?", (RUN,)
        ).fetchall()
        rows = db.execute("SELECT * FROM board_cells WHERE run_id = ? ORDER BY model", (RUN,))
        return [*head, *rows.fetchall()]
    finally:
        db.close()


def _drop_cells(root: Path) -> None:
    db = sqlite3.connect(root / "proctor.db")
    with db:
        db.execute("DELETE FROM board_cells WHERE run_id = ?", (RUN,))
        db.execute("DELETE FROM board_runs WHERE run_id = ?", (RUN,))
    db.close()


@pytest.mark.parametrize("epochs", [(0, 1), (0,)], ids=["epochs", "one-reply"])
@pytest.mark.parametrize("stream", [False, True], ids=["held", "streamed"])
def test_the_reports_cells_are_those_computed_from_its_answers_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: bool, epochs: tuple[int, ...]
) -> None:
    """`write_report` makes the cells from the report's statistics, not by reading the answers
    again (the cells' reader of answers raises meanwhile, and held, every store reader of
    answers too); the rows it stores are the very rows `_compute` stores from the answers."""
    root = tmp_path / "results"
    make_store(root, epochs)
    with RunStore.open(root) as store:
        stats = run_statistics(store, RUN, get_task("arithmetic"), stream=stream)
        assert isinstance(stats.items, StoredItems) is stream
        with monkeypatch.context() as refused:
            refused.setattr(cells_table, "_marks", _refuse("the cells' reading of the answers"))
            if not stream:  # a stream's files read the store again; held, nothing reads it
                for name in READERS_OF_EVERY_ANSWER:
                    refused.setattr(RunStore, name, _refuse(name))
            write_report(store, stats)
    from_statistics = _rows(root)
    _drop_cells(root)
    with RunStore.open(root) as store:
        run_cells(store, RUN)  # from the answers
    from_answers = _rows(root)
    assert from_statistics == from_answers
    # what is compared: every model, marks and all (a model with nothing too)
    assert len(from_answers) == 1 + len(MODELS)
    assert {r[1] for r in from_answers[1:]} == set(MODELS)
    marks = {str(r[1]): bytes(r[-1]) for r in from_answers[1:]}  # type: ignore[arg-type]
    assert set(marks["m/never"]) == {NO_MARK} and {RIGHT, WRONG} <= set(marks["m/epochs"])


def make_random_store(root: Path, seed: int) -> None:
    """A store of chance: models, samples and epochs in number, every outcome, answers
    missing, failed, never asked, never graded, reused, batched, token counts unknown."""
    rng = random.Random(seed)
    n, epochs = rng.randint(1, 9), rng.randint(1, 3)
    models = tuple(f"m/{i}" for i in range(rng.randint(1, 4)))
    samples = [Sample(id=f"s#{i}", input=f"{i}", target=str(i)) for i in range(n)]
    info = RunInfo(
        run_id=RUN, task="arithmetic", models=models, dataset_hash="sha256:x", dataset_size=n,
        generator_version="t", prompt_variant="B", lang="en",
        created_at="2026-12-01T01:01:01+00:00", params=GenerationParams(), seed=None,
    )  # fmt: skip
    records: list[Record] = []
    scores: list[tuple[str, str, int, Score]] = []
    outcomes = ("correct", "wrong", "no_answer", "truncated", "refused", "unscored")
    for model in models:
        for s in samples:
            for epoch in range(epochs):
                if rng.random() < 0.15:
                    continue  # never stored
                failed = rng.random() < 0.2
                r = _record(
                    model, s.id, epoch, status="call_failed" if failed else "ok",
                    error=rng.choice(("CircuitOpen: breaker open", "Transient: x")) if failed
                    else "", cached_from=rng.choice(("", "", "old")),
                    batch_id=rng.choice(("", "b")), usage=Usage(
                        rng.choice((None, rng.randint(0, 99))), rng.choice((None, 7))),
                )  # fmt: skip
                records.append(r)
                if rng.random() < 0.9:  # else never graded
                    outcome = "call_failed" if failed else rng.choice(outcomes)
                    scores.append((model, s.id, epoch, Score(outcome, "t", "")))  # type: ignore[arg-type]
    with RunStore.open(root) as store:
        store.create_run(info, samples, "fp", {})
        store.add_records(records)
        store.save_scores(RUN, scores, "arithmetic/2")
        store.set_status(RUN, "complete")


@pytest.mark.parametrize("seed", range(8))
def test_the_reports_cells_are_the_computed_ones_for_stores_of_chance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Sample ids with "#" in them too (the items are "sample#epoch")."""
    for stream in (False, True):
        root = tmp_path / f"results-{stream}"
        make_random_store(root, seed)
        with RunStore.open(root) as store, monkeypatch.context() as refused:
            stats = run_statistics(store, RUN, get_task("arithmetic"), stream=stream)
            refused.setattr(cells_table, "_marks", _refuse("the cells' reading of the answers"))
            write_report(store, stats)
        from_statistics = _rows(root)
        _drop_cells(root)
        with RunStore.open(root) as store:
            run_cells(store, RUN)
        assert from_statistics == _rows(root) and from_statistics


def test_cells_of_statistics_read_before_another_writer_changed_the_store_are_not_stored(
    root: Path,
) -> None:
    """A grade saved by another connection after the report's statistics were read: the cells
    are not made from those statistics (they would be stale, and the triggers that drop stale
    cells have fired already) but computed from the answers, the new grade in them."""
    with RunStore.open(root) as store:
        stats = run_statistics(store, RUN, get_task("arithmetic"))
        with RunStore.open(root) as other:
            other.add_scores(RUN, [("m/plain", "s1", 0, Score("correct", "t", ""))])  # was wrong
        write_report(store, stats)
        cells = cells_table.read(store, RUN, RECIPE)
    plain = {m.model: m for m in stats.metrics.models}["m/plain"]
    assert cells is not None and cells.models["m/plain"].overall.correct == plain.correct + 1


def test_a_report_counted_by_peoples_verdicts_stores_the_cells_of_the_stored_grades(
    root: Path,
) -> None:
    """The leaderboard ranks by the stored grades: a report that counts people's verdicts
    instead (`--grade-by-human`) has other numbers, so its cells are the stored grades', computed
    from the answers, not its own."""
    verdict = HumanVerdict(RUN, "m/plain", "s1", 0, "ann", "correct", "", reply_hash(
        "Final answer: 1"), False, "2026-12-01T10:00:00+00:00")  # the rules said wrong
    with RunStore.open(root) as store:
        store.add_human_verdicts(RUN, [verdict])
        stats = run_statistics(store, RUN, get_task("arithmetic"), grade_by_human=("*",))
        write_report(store, stats)
        cells = cells_table.read(store, RUN, RECIPE)
    from_report = _rows(root)
    _drop_cells(root)
    with RunStore.open(root) as store:
        run_cells(store, RUN)
    assert from_report == _rows(root)
    assert stats.human is not None and stats.human.counted == 1
    plain = {m.model: m for m in stats.metrics.models}["m/plain"]
    assert cells is not None and cells.models["m/plain"].overall.correct == plain.correct - 1


def _refuse(name: str) -> Callable[..., object]:
    def refused(*_: object, **__: object) -> object:
        raise AssertionError(f"the board read every answer ({name})")

    return refused
