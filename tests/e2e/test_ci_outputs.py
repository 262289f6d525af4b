"""What a CI job gets from `proctor run --junit` and `proctor gate --junit`, through the CLI:
JUnit XML parsed with xml.etree (a test case per answer, per requirement), and the summary
appended to $GITHUB_STEP_SUMMARY (what GitHub shows on the job's page), after what earlier
steps wrote there."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from support.replayed_run import MadeRun, make_run, proctor

EARLIER = "## an earlier step\n\nkept\n"


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[MadeRun, Path, Path]:
    folder = tmp_path_factory.mktemp("ci")
    junit, summary = folder / "run.xml", folder / "summary.md"
    summary.write_text(EARLIER, encoding="utf-8")
    made = make_run(folder, "--junit", junit, env={"GITHUB_STEP_SUMMARY": str(summary)})
    return made, junit, summary


def test_run_junit_has_a_case_per_answer_and_fails_the_wrong_ones(
    ci_run: tuple[MadeRun, Path, Path],
) -> None:
    made, junit, _ = ci_run
    root = ET.parse(junit).getroot()
    alpha, beta = made.models
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {f"gsm8k · {alpha}", f"gsm8k · {beta}"}
    cases = {(c.get("classname"), c.get("name")): [x.tag for x in c]
             for c in root.iter("testcase")}  # fmt: skip
    assert len(cases) == 12  # 2 models × 3 questions × 2 replies
    # alpha's wrong answer and its answer without a number: failures, never passes
    for name in ("q2 #1", "q2 #2", "q3 #1", "q3 #2"):
        assert cases[(f"gsm8k.{alpha}", name)] == ["failure"]
    assert cases[(f"gsm8k.{alpha}", "q1 #1")] == []
    assert all(cases[(f"gsm8k.{beta}", f"q{i} #{e}")] == [] for i in (1, 2, 3) for e in (1, 2))
    assert root.get("tests") == "12" and root.get("failures") == "4" and root.get("errors") == "0"


def test_run_appends_its_summary_to_the_job_summary(ci_run: tuple[MadeRun, Path, Path]) -> None:
    made, _, summary = ci_run
    text = summary.read_text(encoding="utf-8")
    assert text.startswith(EARLIER)  # appended, never overwritten
    assert made.run_id in text and "33.3 %" in text and "100.0 %" in text


def test_gate_junit_has_a_case_per_requirement_and_model(
    ci_run: tuple[MadeRun, Path, Path], tmp_path: Path
) -> None:
    made, _, _ = ci_run
    junit, summary = tmp_path / "gate.xml", tmp_path / "summary.md"
    done = proctor(
        "gate", made.run_id, "--require", "accuracy>=0.9", "--require", "n>=6",
        "--junit", junit, "-r", made.results, env={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # alpha is below 0.9
    root = ET.parse(junit).getroot()
    cases = {c.get("name"): [x.tag for x in c] for c in root.iter("testcase")}
    kinds = {c.get("name"): [x.get("type") for x in c] for c in root.iter("testcase")}
    alpha, beta = made.models
    # beta answered all 3 items right, which cannot show 90 % by its interval: inconclusive,
    # a failure of its own type (nothing passes without the evidence).
    assert kinds[f"accuracy>=0.9 · {beta}"] == ["inconclusive"]
    assert kinds[f"accuracy>=0.9 · {alpha}"] == ["requirement"]
    assert cases == {
        f"accuracy>=0.9 · {alpha}": ["failure"],
        f"accuracy>=0.9 · {beta}": ["failure"],
        f"n>=6 · {alpha}": [],
        f"n>=6 · {beta}": [],
    }
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### ❌ proctor gate did not pass")
    assert "**FAIL**" in text and "**INCONCLUSIVE**" in text and "2 of 4 checks pass" in text
    passed = proctor("gate", made.run_id, "--require", "n>=6", "--junit", junit,
                     "-r", made.results)  # fmt: skip
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert [c.findall("*") for c in ET.parse(junit).getroot().iter("testcase")] == [[], []]
