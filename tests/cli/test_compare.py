"""`proctor compare` end to end over a real run store, through typer's runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.errors import ProctorError
from support.compare_runs import right, store_run, wrong_from

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


def compare(*args: str | Path) -> tuple[int, str]:
    """Exit code and squashed output; an error that `main` turns into exit 2 counts as 2."""
    result = CliRunner().invoke(app, ["compare", *map(str, args)], env=ENV)
    if isinstance(result.exception, ProctorError):
        return 2, "".join(str(result.exception).split())
    return result.exit_code, "".join(result.output.split())


def proctor(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(ENV)
    return subprocess.run(
        [sys.executable, "-m", "proctor", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    store_run(folder, "run-base", {"model-x": wrong_from(38)})
    store_run(folder, "run-worse", {"model-x": wrong_from(26)})
    store_run(folder, "run-better", {"model-x": right})
    store_run(
        folder,
        "run-two",
        {
            "fake/const:42": wrong_from(30),
            "openai-compat/x@http://127.0.0.1:1/v1": lambda i, s: None,
        },
    )
    return folder


def test_regression_exits_one(results: Path) -> None:
    code, out = compare("run-base", "run-worse", "-r", results)
    assert code == 1
    assert "model-x(run-base)bettert" in out  # words are squashed: whitespace removed
    assert "by30.0points" in out


def test_improvement_exits_zero(results: Path) -> None:
    code, out = compare("run-base", "run-better", "-r", results)
    assert code == 0
    assert "model-x(run-base)andmodel-x(run-better)notdistinguishableonthese40items" in out
    assert "itemsfor80%power" in out


def test_significantly_better_exits_zero(results: Path) -> None:
    code, out = compare("run-worse", "run-base", "-r", results)
    assert code == 0
    assert "model-x(run-base)betterthanmodel-x(run-worse)by30.0points" in out


def test_markdown_file(results: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "compare.md"
    code, _ = compare("run-base", "run-worse", "-r", results, "--markdown", target)
    assert code == 1
    assert target.read_text(encoding="utf-8").startswith("## proctor compare:")


def test_run_folder_names_its_store(results: Path) -> None:
    code, _ = compare(results / "runs" / "run-base", results / "runs" / "run-worse")
    assert code == 1


def test_two_models_of_one_run(results: Path) -> None:
    code, out = compare("run-two", "--models", "fake", "openai-compat", "-r", results)
    assert code == 2  # every call of B failed: nothing to compare
    assert "noitemwasscoredonbothsides" in out


def test_exit_codes_as_a_process(results: Path, tmp_path: Path) -> None:
    """What CI sees: 1 for a significant regression, 2 for errors (0 is checked in-process)."""
    worse = proctor("compare", "run-base", "run-worse", "-r", results, cwd=tmp_path)
    assert worse.returncode == 1, worse.stderr
    assert "better than" in worse.stdout
    failed = proctor(
        "compare", "run-two", "--models", "fake", "openai", "-r", results, cwd=tmp_path
    )
    assert failed.returncode == 2
    assert "nothing to compare" in failed.stderr


def test_several_models_need_models(results: Path) -> None:
    code, out = compare("run-two", "run-base", "-r", results)
    assert code == 2
    assert "choosewith--modelsAB" in out


def test_same_model_twice_is_refused(results: Path) -> None:
    code, _ = compare("run-base", "--models", "model-x", "model-x", "-r", results)
    assert code == 2


def test_one_run_without_models_is_a_usage_error(results: Path) -> None:
    code, _ = compare("run-base", "-r", results)
    assert code == 2


def test_bad_options(results: Path) -> None:
    code, _ = compare("run-base", "run-worse", "-r", results, "--alpha", "2")
    assert code == 2


def test_help_lists_compare() -> None:
    result = CliRunner().invoke(app, ["--help"], env=ENV)
    assert "compare" in result.output
