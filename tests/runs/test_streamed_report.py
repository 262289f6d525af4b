"""A run's report is written from its answers streamed from the store (`StoredItems`), one
model at a time, never from a list of every answer: its files equal, byte for byte, those the
list-based path gives on the same store (a generated run of 20,000 answers, and a small one),
and the report is written even by a store that refuses to hand out every answer at once."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.report.html import report_html
from proctor.report.markdown import summary_markdown
from proctor.report.results_json import results_json
from proctor.report.samples_csv import write_samples_csv
from proctor.runs import rereport
from proctor.runs.grade import StoredItems
from proctor.runs.report import run_statistics
from proctor.runs.rereport import report_run
from proctor.stats.run_statistics import RunStatistics
from proctor.store import RunStore
from proctor.tasks.registry import get_task
from support.big_store import make_big_store
from support.stub.report_scripts import numbers, structured
from support.stub.scripted import Script, run_scripted

RUN = "20261201-010101-arithmetic-big"


def _files(stats: RunStatistics) -> dict[str, str]:
    csv = io.StringIO(newline="")
    write_samples_csv(csv, stats.items, stats.task.rules, list(stats.models))
    return {
        "results.json": results_json(stats),
        "samples.csv": csv.getvalue(),
        "summary.md": summary_markdown(stats),
        "report.html": report_html(stats),
    }


def _written(run_dir: Path) -> dict[str, str]:
    names = ("results.json", "samples.csv", "summary.md", "report.html")
    return {n: (run_dir / n).read_bytes().decode("utf-8") for n in names}


@pytest.mark.parametrize(
    ("n_items", "models"),
    [(10_000, ("m/b", "m/a")), (7, ("m/c", "m/a", "m/b"))],
    ids=["20,000 answers", "21 answers"],
)
def test_the_streamed_report_is_the_list_based_one_byte_for_byte(
    tmp_path: Path, n_items: int, models: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rereport, "STREAM_ABOVE", 0)  # stream whatever the size
    root = tmp_path / "results"
    make_big_store(root, n_items, models, RUN)
    task = get_task("arithmetic")
    with RunStore.open(root) as store:
        held = run_statistics(store, RUN, task)  # the answers read into one list
    assert isinstance(held.items, tuple) and len(held.items) == n_items * len(models)
    reported = report_run(root, RUN, None, lambda name, limits: get_task(name), regrade=False)
    assert isinstance(reported.stats.items, StoredItems)
    assert _written(reported.run_dir) == _files(held)


def test_a_report_never_asks_the_store_for_every_answer_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "results"
    make_big_store(root, 40, ("m/a", "m/b"), RUN)

    def every_answer(*args: object) -> object:
        raise AssertionError("a report read every answer into one list")

    monkeypatch.setattr(RunStore, "graded_items", every_answer)
    monkeypatch.setattr(rereport, "STREAM_ABOVE", 0)
    reported = report_run(root, RUN, None, lambda name, limits: get_task(name), regrade=False)
    assert reported.stats.metrics.model("m/a").n_items == 40
    assert sum(1 for _ in reported.stats.items) == 80  # walked again, from the store
    rows = (reported.run_dir / "samples.csv").read_text(encoding="utf-8").count("\n")
    assert rows >= 81  # a header and 80 answers (replies span two lines)


def test_a_run_that_fits_holds_its_answers_once_and_a_large_one_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "results"
    make_big_store(root, 40, ("m/a", "m/b"), RUN)
    reported = report_run(root, RUN, None, lambda name, limits: get_task(name), regrade=False)
    assert isinstance(reported.stats.items, tuple)  # 80 answers: read once, held
    # what decides is the memory held, samples included: bench (e)'s one model's 100,000
    # answers to as many samples stream; (f)'s 50 models × 2,000 samples (as many answers) fit
    assert rereport.held_mb(100_000, 2_000) <= rereport.STREAM_ABOVE
    assert rereport.held_mb(100_000, 100_000) > rereport.STREAM_ABOVE
    monkeypatch.setattr(rereport, "STREAM_ABOVE", rereport.held_mb(80, 40) * 0.99)
    again = report_run(root, RUN, None, lambda name, limits: get_task(name), regrade=False)
    assert isinstance(again.stats.items, StoredItems)


# -- every kind of task: its own metrics, its confidences and a suite's [gate] streamed too --

ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _cli(*args: object) -> int:
    result = CliRunner().invoke(app, [str(a) for a in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code


REPORTED = ("results.json", "samples.csv", "summary.md", "report.html", "task_metrics.json")


def _reported(run_dir: Path) -> dict[str, bytes]:
    """The report's files, each then removed (so that the next report writes it anew)."""
    found = {n: (run_dir / n).read_bytes() for n in REPORTED if (run_dir / n).exists()}
    for name in found:
        (run_dir / name).unlink()
    return found


@pytest.mark.parametrize(
    ("args", "script"),
    [
        (["structured", "--limit", "14"], structured),
        (["gsm8k", "--limit", "12"], numbers),
        (["--suite", str(EXAMPLES / "support-desk.csv")], numbers),
    ],
    ids=["structured: metrics and calibration", "gsm8k: lm-eval metrics", "suite: its [gate]"],
)
def test_every_kind_of_task_streams_to_the_report_it_had_held(
    tmp_path: Path, args: list[str], script: Callable[[int], Script],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Through the CLI against loopback stubs: `proctor report` of a run held, then streamed
    from a store that refuses to hand out every answer at once: the same files, byte for byte,
    with the task's own metrics, its calibration and the suite's gate in them."""
    results = tmp_path / "results"
    with run_scripted(script(0)) as a, run_scripted(script(3)) as b:
        _cli("run", *args, "-r", results, "--max-attempts", "1", "-m", a.model, "-m", b.model)
    with RunStore.open(results) as store:
        (run_id,) = [r.run_id for r in store.list_runs()]
        run_dir = store.run_dir(run_id)
    assert _cli("report", run_id, "-r", results) in (0, 1)
    held = _reported(run_dir)

    def every_answer(*args: object) -> object:
        raise AssertionError("a report read every answer into one list")

    monkeypatch.setattr(RunStore, "graded_items", every_answer)
    monkeypatch.setattr(rereport, "STREAM_ABOVE", 0)
    assert _cli("report", run_id, "-r", results) in (0, 1)
    streamed = _reported(run_dir)
    assert streamed == held
    document = json.loads(held["results.json"])
    if args[0] == "structured":
        assert len(document["calibration"]) == 2 and "task_metrics.json" in held
        metrics = json.loads(held["task_metrics.json"])["models"]
        assert all("ECE" in m and "structured total (mean)" in m for m in metrics.values())
    elif args[0] == "gsm8k":
        metrics = json.loads(held["task_metrics.json"])["models"]
        assert len(metrics) == 2
        assert all("accuracy (lm-eval flexible-extract)" in m for m in metrics.values())
    else:
        assert len(document["gate"]["checks"]) == 3 * 2
