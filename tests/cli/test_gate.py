"""`proctor gate` as CI runs it: exit 0 when every requirement passes, 1 when any fails (a run
below threshold fails the build), 2 on a usage error; requirements from the command line or the
suite's config; "not significantly worse than a baseline run"; a warning when two runs used
different suite versions."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.errors import ProctorError
from proctor.store import RunStore

from .conftest import EXAMPLE, RunSuite, proctor, reference_replies


def gate(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`proctor gate` in this process (fast); exit codes 0 and 1 are the command's own."""
    env = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
    result = CliRunner().invoke(app, ["gate", *(str(a) for a in args)], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.output, "")


@pytest.fixture
def runs(tmp_path: Path, run_suite: RunSuite) -> tuple[Path, str, str]:
    """A good run (every standard answer) and a weak one (refusals that invent a number and
    extractions with units): 40/40 and 28/40."""
    results = tmp_path / "results"
    good = reference_replies(EXAMPLE)
    weak = dict(good)
    for case in good:
        if case.startswith("ref-"):
            weak[case] = "材料未提及，估计是 42。"
    for case in ("ext-01-refund", "ext-04-invoice"):
        weak[case] = '{"amount": "299元"}'
    return (
        results,
        run_suite(EXAMPLE, "fake/good", good, results),
        run_suite(EXAMPLE, "fake/weak", weak, results),
    )


def test_a_run_above_threshold_passes_and_one_below_fails_ci(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, weak = runs
    passed = proctor("gate", good, "--require", "accuracy>=0.9", "-r", results, cwd=tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "pass" in passed.stdout and "gate passed: 1 checks" in passed.stdout
    failed = proctor("gate", weak, "--require", "accuracy>=0.9", "-r", results, cwd=tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "70.0 %" in failed.stdout and "FAIL" in failed.stdout
    assert "gate failed: 1 of 1 checks" in failed.stdout


def test_kind_filters_show_what_passed_and_what_failed(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, _, weak = runs
    out = proctor(
        "gate", weak,
        "--require", "kind=summary:accuracy>=0.95",
        "--require", "kind=extraction:accuracy>=0.95",
        "-r", results, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 1  # a failure outranks an inconclusive check
    lines = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if "│" in line}
    # 10 of 10 summaries right: 100 %, but the interval reaches down to 72 %
    assert "INCONCLUSIVE" in lines["kind=summary:accuracy>=0.95"]
    assert "about 73 items would decide it" in " ".join(out.stdout.split())
    assert "FAIL" in lines["kind=extraction:accuracy>=0.95"]
    assert "80.0 %" in lines["kind=extraction:accuracy>=0.95"]


def test_requirements_from_the_suite_config(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, weak = runs
    assert gate(good, "-r", results, cwd=tmp_path).returncode == 0
    out = gate("latest", "-r", results, cwd=tmp_path)
    assert out.returncode == 1 and weak in out.stdout
    for requirement in (
        "accuracy>=0.8",
        "kind=extraction:accuracy>=0.7",
        "kind=refusal:accuracy>=0.7",
    ):
        assert requirement in out.stdout
    with_config = gate(weak, "--config", EXAMPLE.with_suffix(".toml"), "-r", results, cwd=tmp_path)
    assert with_config.returncode == 1


def test_not_significantly_worse_than_a_baseline(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, weak = runs
    out = gate(weak, "--require", "accuracy>=0.5", "--baseline", good, "-r", results, cwd=tmp_path)
    assert out.returncode == 1, out.stdout
    assert f"not significantly worse than {good}" in out.stdout
    assert "p < 0.001" in " ".join(out.stdout.split())
    same = gate(good, "--baseline", good, "-r", results, cwd=tmp_path)
    assert same.returncode == 0, same.stdout


def test_a_baseline_on_another_suite_version_is_flagged(
    runs: tuple[Path, str, str], tmp_path: Path, run_suite: RunSuite
) -> None:
    results, good, _ = runs
    changed = tmp_path / "support-desk.csv"
    shutil.copy(EXAMPLE, changed)
    shutil.copy(EXAMPLE.with_suffix(".toml"), changed.with_suffix(".toml"))
    with changed.open("a", encoding="utf-8") as f:
        f.write("new-01,refusal,材料,问题？,,,,,,,,easy\n")
    newer = run_suite(changed, "fake/good", {**reference_replies(changed)}, results)
    out = gate(newer, "--baseline", good, "-r", results, cwd=tmp_path)
    text = " ".join(out.stdout.split())
    assert "warning: the two runs used different suite versions" in text
    assert out.returncode == 0


def test_too_little_evidence_is_inconclusive_and_never_exits_0(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    """A perfect run on ten summaries does not prove 95 %: exit 7, unless allowed; the
    point-estimate rule, asked by name, passes it and says so."""
    results, good, _ = runs
    need = ("--require", "kind=summary:accuracy>=0.95")
    out = gate(good, *need, "-r", results, cwd=tmp_path)
    assert out.returncode == 7, out.stdout
    text = " ".join(out.stdout.split())
    assert "INCONCLUSIVE" in text and "gate inconclusive: 1 of 1 checks" in text
    assert "gate passed" not in text
    allowed = gate(good, *need, "--allow-inconclusive", "-r", results, cwd=tmp_path)
    assert allowed.returncode == 0
    assert "gate passed with 1 inconclusive check(s)" in " ".join(allowed.stdout.split())
    point = gate(good, *need, "--rule", "point", "-r", results, cwd=tmp_path)
    assert point.returncode == 0
    assert "point-estimate rule" in " ".join(point.stdout.split())


def test_a_baseline_margin(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, weak = runs
    worse = gate(weak, "--baseline", good, "--margin", "1pp", "--require", "n>=1",
                 "-r", results, cwd=tmp_path)  # fmt: skip
    assert worse.returncode == 1
    assert "INFERIOR" in " ".join(worse.stdout.split())
    same = gate(good, "--baseline", good, "--margin", "5pp", "--require", "n>=1",
                "-r", results, cwd=tmp_path)  # fmt: skip
    assert same.returncode == 0, same.stdout
    assert f"within 5 points of {good}" in " ".join(same.stdout.split())
    with pytest.raises(ProctorError, match="--margin compares with a baseline"):
        gate(good, "--margin", "1pp", "--require", "n>=1", "-r", results, cwd=tmp_path)


def test_usage_errors_exit_2(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, _ = runs
    out = proctor("gate", good, "--require", "acuracy>=0.9", "-r", results, cwd=tmp_path)
    assert out.returncode == 2
    assert "unknown metric 'acuracy'" in out.stderr and "known metrics are accuracy" in out.stderr
    with pytest.raises(ProctorError, match="no run store"):
        gate("nope", "-r", tmp_path / "bare", cwd=tmp_path)
    with pytest.raises(ProctorError, match="nothing to check"):
        gate(good, "-r", results, "--config", _empty_config(tmp_path), cwd=tmp_path)
    with pytest.raises(ProctorError, match="--rule is bound or point, got 'maybe'"):
        gate(good, "--require", "n>=1", "--rule", "maybe", "-r", results, cwd=tmp_path)
    with pytest.raises(ProctorError, match="--margin is a number of points"):
        gate(good, "--baseline", good, "--margin", "lots", "-r", results, cwd=tmp_path)


def _empty_config(tmp_path: Path) -> Path:
    path = tmp_path / "empty.toml"
    path.write_text("", encoding="utf-8")
    return path


def test_a_gate_reads_each_models_answers_never_every_answer_at_once(
    runs: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run and its baseline are read one model at a time (the figures as ever), from a
    store that refuses to hand out every answer of a run at once."""
    results, good, weak = runs
    held = gate(weak, "--require", "accuracy>=0.9", "--require", "kind=extraction:n>=10",
                "--baseline", good, "-r", results, cwd=tmp_path)  # fmt: skip

    def every_answer(*args: object) -> object:
        raise AssertionError("a gate read every answer of a run into one list")

    monkeypatch.setattr(RunStore, "graded_items", every_answer)
    out = gate(weak, "--require", "accuracy>=0.9", "--require", "kind=extraction:n>=10",
               "--baseline", good, "-r", results, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 1 and out.stdout == held.stdout
    assert "70.0 %" in out.stdout and "significantly worse" in out.stdout
    lines = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if "│" in line}
    assert "pass" in lines["kind=extraction:n>=10"] and "FAIL" in lines["accuracy>=0.9"]
