"""`proctor compare --margin`: the release verdict from the paired interval, its sentence and
its exit codes (0 accepted, 1 INFERIOR, 7 INCONCLUSIVE unless --allow-inconclusive, 2 bad
margin), over a real run store."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.errors import ProctorError
from proctor.runs.state import EXIT_CHECK_FAILED, EXIT_INCONCLUSIVE, EXIT_OK, EXIT_USAGE
from support.compare_runs import right, store_run, wrong_from

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


def compare(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["compare", *map(str, args)], env=ENV)
    if isinstance(result.exception, ProctorError):
        return EXIT_USAGE, " ".join(str(result.exception).split())
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    store_run(folder, "run-base", {"model-x": wrong_from(38)})
    store_run(folder, "run-same", {"model-x": wrong_from(38)})
    store_run(folder, "run-worse", {"model-x": wrong_from(26)})
    store_run(folder, "run-better", {"model-x": right})
    return folder


def test_a_clear_regression_is_inferior_and_exits_one(results: Path) -> None:
    code, out = compare("run-base", "run-worse", "--margin", "1pp", "-r", results)
    assert code == EXIT_CHECK_FAILED
    assert "INFERIOR: model-x (run-worse) is worse than model-x (run-base) by more than" in out
    assert "−30.0 points" in out


def test_a_small_gain_on_few_items_is_inconclusive_never_zero(results: Path) -> None:
    """+5 points on 40 items: the point estimate is positive, but the interval reaches below
    −1 point, so nothing is decided and the exit is not 0."""
    code, out = compare("run-base", "run-better", "--margin", "1pp", "-r", results)
    assert code == EXIT_INCONCLUSIVE
    assert "INCONCLUSIVE: these items cannot tell whether" in out
    assert "+5.0 points" in out
    assert "paired items would decide it" in out
    code, _ = compare(
        "run-base", "run-better", "--margin", "1pp", "--allow-inconclusive", "-r", results
    )
    assert code == EXIT_OK


def test_a_wider_margin_decides_non_inferior(results: Path) -> None:
    code, out = compare("run-base", "run-better", "--margin", "5pp", "-r", results)
    assert code == EXIT_OK
    assert "NON-INFERIOR: model-x (run-better) is at most 5.0 points worse" in out
    assert "Minimum detectable effect at 80 % power" in out


def test_identical_answers_are_equivalent(results: Path) -> None:
    code, out = compare("run-base", "run-same", "--margin", "5pp", "-r", results)
    assert code == EXIT_OK
    assert "EQUIVALENT: model-x (run-same) is within ±5.0 points of model-x (run-base)" in out


def test_a_clear_gain_is_superior(results: Path) -> None:
    code, out = compare("run-worse", "run-base", "--margin", "1pp", "-r", results)
    assert code == EXIT_OK
    assert "SUPERIOR: model-x (run-base) is better than model-x (run-worse)" in out


def test_the_markdown_carries_the_sentence(results: Path, tmp_path: Path) -> None:
    target = tmp_path / "pr.md"
    code, _ = compare(
        "run-base", "run-worse", "--margin", "1pp", "--markdown", target, "-r", results
    )
    assert code == EXIT_CHECK_FAILED
    text = target.read_text(encoding="utf-8")
    assert "❌ **INFERIOR:" in text
    assert "never the point estimate" in text


@pytest.mark.parametrize("bad", ["0", "-1pp", "one", "101pp"])
def test_a_bad_margin_is_a_usage_error(results: Path, bad: str) -> None:
    code, out = compare("run-base", "run-worse", "--margin", bad, "-r", results)
    assert code == EXIT_USAGE
    assert "--margin is a number of points" in out
