"""`proctor run TASK -m A -m B --sequential --margin 1pp` through the CLI against loopback stubs:
a clearly better model is decided after well under half the items, and the items not asked are
never sent; the run's report files say it stopped early by design and why, and `proctor report`
exits 0 on it; a near tie stays INCONCLUSIVE (exit 7) after asking every item."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.store import RunStore
from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import FLAT_ENV as ENV
from .conftest import flat_cli as cli


def test_a_clearly_better_model_is_decided_early(tmp_path: Path) -> None:
    items = 200
    with run_stub(StubConfig(correct_rate=0.95, seed=1)) as stub:
        code, out = cli("run", "arithmetic", "--n", str(items), "-m", "fake/const:42",
                        "-m", stub.model, "--sequential", "--margin", "1pp", "-r",
                        tmp_path / "r")  # fmt: skip
        asked = stub.stats().requests
        with RunStore.open(tmp_path / "r") as store:
            (run,) = store.list_runs()
        _stopped_by_design(tmp_path / "r", run.run_id, out)
        _on_the_board(tmp_path / "r", run.run_id)
        # stopped early, the run resumes as any run: the rest is asked, nothing twice
        again, more = cli("run", "--resume", run.run_id, "-r", tmp_path / "r")
        assert again == 0, more
        assert stub.stats().requests == items
        assert "stopped early" not in more  # complete now: an ordinary run
    assert code == 0, out
    assert f"SUPERIOR: {stub.model} against fake/const:42" in out
    found = re.search(r"decided after (\d+) of 200 items", out)
    assert found is not None, out
    assert int(found.group(1)) == asked < items / 2  # well under half; nothing more was sent
    assert "valid under optional stopping" in out and "Howard et al." in out
    with RunStore.open(tmp_path / "r") as store:
        assert store.count_records(run.run_id)[stub.model] == items


def _stopped_by_design(results: Path, run_id: str, out: str) -> None:
    """The stopped run's report files are written and say it stopped early by design, and why;
    `proctor report` says the same later and exits 0 (what was not asked was not needed)."""
    run_dir = results / "runs" / run_id
    for name in ("results.json", "summary.md", "report.html", "samples.csv"):
        assert str(run_dir / name) in out
    why = json.loads((run_dir / "results.json").read_text("utf-8"))["run"]["stopped_early"]
    assert why.startswith("a sequential test (--sequential --margin 1.0pp) decided SUPERIOR")
    assert "items left were not asked on purpose" in why
    summary = " ".join((run_dir / "summary.md").read_text("utf-8").split())
    assert f"run {run_id} stopped early by design: {why}" in summary
    assert "answers not asked: stopped early by design" in summary
    assert "stopped early by design" in (run_dir / "report.html").read_text("utf-8")
    code, said = cli("report", run_id, "-r", results)
    assert code == 0, said
    assert f"run {run_id} stopped early by design" in said and "is incomplete" not in said
    assert f"proctor run --resume {run_id}" in said


def _on_the_board(results: Path, run_id: str) -> None:
    """The leaderboard says the same as the run's files: stopped early by design (marked "~"
    and explained in the legend), not incomplete; its numbers are the report's."""
    code, said = cli("leaderboard", run_id, "--json", "-r", results)
    assert code == 0, said
    doc = json.loads((results / "runs" / run_id / "results.json").read_text("utf-8"))
    for row in json.loads(said)["models"]:
        (cell,) = row["tasks"].values()
        assert cell["state"] == "stopped early by design", cell
        (mine,) = [m for m in doc["models"] if m["model"] == row["model"]]
        assert (cell["accuracy"], cell["n_items"]) == (mine["accuracy"], mine["n_items"])
    code, said = cli("leaderboard", run_id, "-r", results)
    assert code == 0, said
    assert "~ stopped early by design" in said and "*" not in said.split("vs next")[0]


def test_a_near_tie_stays_inconclusive_and_asks_everything(tmp_path: Path) -> None:
    items = 60
    with run_stub(StubConfig(correct_rate=0.9, seed=1)) as a, run_stub(
        StubConfig(correct_rate=0.88, seed=1)
    ) as b:
        code, out = cli("run", "arithmetic", "--n", str(items), "-m", a.model, "-m", b.model,
                        "--sequential", "--margin", "1pp", "-r", tmp_path / "r")  # fmt: skip
        assert (a.stats().requests, b.stats().requests) == (items, items)
    assert code == 7, out
    assert "INCONCLUSIVE" in out and f"every one of the {items} items asked" in out
    found = re.search(r"= ([+−]\d+\.\d) points", out)
    assert found is not None and abs(float(found.group(1).replace("−", "-"))) <= 2.0, out


def test_sequential_needs_a_margin_and_two_models(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "arithmetic", "--n", "5", "-m", "fake/const:1",
                                      "-m", "fake/const:2", "--sequential", "-r",
                                      str(tmp_path / "r")], env=ENV)  # fmt: skip
    assert result.exit_code == 2
