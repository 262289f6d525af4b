"""One verdict of one run, whoever asks: `proctor run --suite`, `report`, `score`, `gate` and
`proctor.testing.assert_run` exit (or raise) alike on a suite run whose own gate failed (`run`
printed "gate failed" and exited 0, while `gate` exited 1), and every output shows the gate's
values in one format (a share as "0.0 %", never "0" in one place and "0.0 %" in another)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.testing import assert_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
WRONG = 'fake/const:{"name": "王丽", "amount": "299元"}'
RIGHT = 'fake/const:{"name": "王丽", "amount": 299}'


def proctor(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env=ENV, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    for name in ("first-case.csv", "first-case.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "first-case.csv"


def test_a_failed_suite_gate_exits_1_from_every_command(suite: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = proctor("run", "--suite", suite, "-m", WRONG, "-r", results)
    assert code == 1, out
    assert "gate failed: 1 of 1 checks" in out
    for command in ("report", "score", "gate"):
        code, out = proctor(command, "latest", "-r", results)
        assert code == 1, (command, out)
        assert "gate failed: 1 of 1 checks" in out, (command, out)
    with pytest.raises(AssertionError, match="gate failed"):
        assert_run("latest", "accuracy>=0.9", results_dir=results)


def test_a_passed_suite_gate_exits_0_from_every_command(suite: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = proctor("run", "--suite", suite, "-m", RIGHT, "-r", results)
    assert code == 0, out
    for command in ("report", "score", "gate"):
        code, out = proctor(command, "latest", "-r", results)
        assert code == 0, (command, out)
    # the suite's gate names the point-estimate rule; one right case proves nothing by default
    assert_run("latest", "rule=point:accuracy>=0.9", results_dir=results)
    with pytest.raises(AssertionError, match="gate inconclusive") as raised:
        assert_run("latest", "accuracy>=0.9", results_dir=results)
    assert "about 35 items would decide it" in str(raised.value)


def test_gate_values_read_alike_in_every_output(suite: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    _, ran = proctor("run", "--suite", suite, "-m", WRONG, "-r", results)
    _, gated = proctor("gate", "latest", "-r", results)
    run_dir = next((results / "runs").iterdir())
    summary = (run_dir / "summary.md").read_text(encoding="utf-8")
    gate_rows = [line for line in summary.splitlines() if "accuracy&gt;=0.9" in line]
    assert gate_rows and all("0.0 %" in line for line in gate_rows), gate_rows
    for shown in (ran, gated):
        (row,) = [line for line in shown.splitlines() if "accuracy>=0.9" in line]
        assert "0.0 %" in row, row
    with pytest.raises(AssertionError) as raised:
        assert_run("latest", "accuracy>=0.9", results_dir=results)
    (row,) = [line for line in str(raised.value).splitlines() if "accuracy>=0.9" in line]
    assert "0.0 %" in row, row
    # results.json keeps the number itself, for machines
    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    assert doc["gate"]["checks"][0]["value"] == 0.0
