"""The walk-through of examples/README.md, step by step: a first case, a scripted model that
writes the amount with a unit, a failing gate (exit 1), the right answer, a passing gate."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from proctor.cli.app import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}


def proctor(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env=ENV, catch_exceptions=False)
    return result.exit_code, result.output


def test_first_case_to_a_failing_gate_and_back(tmp_path: Path) -> None:
    for name in ("first-case.csv", "first-case.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    suite, results = tmp_path / "first-case.csv", tmp_path / "demo"
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")

    wrong = 'fake/const:{"name": "王丽", "amount": "299元"}'
    assert f"-m '{wrong}'" in readme
    code, out = proctor("run", "--suite", suite, "-m", wrong, "-r", results)
    assert code == 1 and "0.0 %" in out  # the suite's own gate failed
    run_dir = next((results / "runs").iterdir())
    assert 'amount: expected the number 299, got ""299元"" (a number with a unit' in (
        run_dir / "samples.csv"
    ).read_text(encoding="utf-8")

    code, out = proctor("gate", "latest", "-r", results)
    assert code == 1
    assert "accuracy>=0.9" in out and "FAIL" in out and "gate failed: 1 of 1 checks" in out

    right = 'fake/const:{"name": "王丽", "amount": 299}'
    assert f"-m '{right}'" in readme
    proctor("run", "--suite", suite, "-m", right, "-r", results)
    code, out = proctor("gate", "latest", "-r", results)
    assert code == 0 and "gate passed" in out
