"""Peer graders' own test cases through the public path: `proctor run TASK --dataset F` against
`proctor.replay` (what `python -m proctor.replay --replies F` serves) replaying each case's
prediction, then the run's samples.csv read back (Math-Verify's tests, Qwen2.5-Math's examples).
Every disagreement must be listed in the table with its sentence; no false "correct"."""

from __future__ import annotations

from pathlib import Path

from proctor.report.samples_csv import inert

from . import walk


def test_math_verify_cases_through_proctor_run_math500(tmp_path: Path) -> None:
    rows = walk.load("math_verify")["rows"]
    verdicts = []
    for row, graded in zip(
        rows, walk.through_cli(rows, "math500", "math-verify", tmp_path), strict=True
    ):
        assert graded["raw_response"] == inert(str(row["reply"]))  # a formula cell is quoted
        ours = "correct" if graded["outcome"] == "correct" else "not_correct"
        verdicts.append(walk.Verdict(row, ours, ()))
    problems = walk.problems(verdicts)
    assert not problems, f"{len(problems)} rows:\n" + "\n".join(problems)
    default = [v for v in verdicts if v.default_options]
    agree = sum(v.agrees for v in default)
    assert len(default) == 261 and agree >= 259, f"{agree} of {len(default)} agree"
    assert not [v for v in verdicts if v.false_correct and v.default_options]


def test_qwen_examples_through_proctor_run(tmp_path: Path) -> None:
    """Qwen2.5-Math's examples (cases/qwen25_math.json) through `proctor run math500` and
    `proctor run gsm8k`, each row by the task `walk.task_for` names: the same verdicts as the
    table walk, no false correct."""
    table = walk.load("qwen25_math")
    verdicts = []
    for task in ("math500", "gsm8k"):
        rows = [r for r in table["rows"] if walk.task_for(r, table) == task]
        for row, graded in zip(
            rows, walk.through_cli(rows, task, f"qwen-{task}", tmp_path), strict=True
        ):
            ours = "correct" if graded["outcome"] == "correct" else "not_correct"
            verdicts.append(walk.Verdict(row, ours, ()))
    assert len(verdicts) == len(table["rows"])
    problems = walk.problems(verdicts)
    assert not problems, f"{len(problems)} rows:\n" + "\n".join(problems)
    assert sum(v.agrees for v in verdicts) >= sum(
        v.row["qwen"] == v.row["expected"] for v in verdicts
    )
