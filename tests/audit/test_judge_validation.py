"""`proctor judge RUN --judge M --against LABELS.csv` on the example suite, as examples/README.md
walks it: a scripted candidate and a scripted judge (two stubs on 127.0.0.1), the shipped human
labels, then the gate on judge_kappa."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.stub.config import StubConfig
from support.stub.server import StubHandle, run_stub

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
LABELS = EXAMPLES / "support-desk.labels.csv"


def replies(name: str) -> tuple[tuple[str, str], ...]:
    table = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return tuple(table.items())


def proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, StubHandle]:
    results = tmp_path_factory.mktemp("judged")
    bot = StubConfig(answer_mode="script", replies=replies("support-desk.replies.json"))
    with run_stub(bot) as candidate:
        done = proctor(
            "run",
            "--suite",
            str(EXAMPLES / "support-desk.csv"),
            "-m",
            f"openai-compat/desk-bot@{candidate.base_url}",
            "-r",
            str(results),
        )
        # The scripted desk-bot fails the suite's own [gate]: the run says so and exits 1, as
        # `proctor gate` would; its answers are stored all the same, and are judged below.
        assert done.returncode == 1, done.stderr
        assert "gate failed" in done.stdout + done.stderr
    judge = StubConfig(answer_mode="script", replies=replies("support-desk.judge-replies.json"))
    with run_stub(judge) as handle:
        yield results, handle


def test_the_example_judge_is_validated_against_the_labels(
    judged: tuple[Path, StubHandle],
) -> None:
    results, judge = judged
    model = f"openai-compat/judge-bot@{judge.base_url}"
    done = proctor(
        "judge", "latest", "--judge", model, "--against", str(LABELS), "-r", str(results)
    )
    assert done.returncode == 0, done.stderr
    # 20 labelled answers, 17 agree: kappa = (0.85 - 0.6) / 0.4 with base rates 0.75 and 0.70.
    assert "20 of 20 labelled answers compared" in done.stdout
    assert "agreement 85.0% (17 of 20); Cohen's kappa 0.625" in done.stdout
    assert "base rate (pass): judge 75.0%, humans 70.0%" in done.stdout
    (path,) = results.glob("runs/*/judge_validation.json")
    stored = json.loads(path.read_text(encoding="utf-8"))["judges"][model]
    assert stored["overall"]["kappa"] == pytest.approx(0.625)
    low, high = stored["overall"]["kappa_low"], stored["overall"]["kappa_high"]
    assert low < 0.625 < high <= 1.0
    # κ 0.625 on 20 labels, its interval reaching far below 0.6: no evidence either way (exit 7)
    loose = proctor("gate", "latest", "--require", "judge_kappa>=0.6", "-r", str(results))
    assert loose.returncode == 7 and "INCONCLUSIVE" in loose.stdout
    assert f"{low:.2f}–{high:.2f}" in " ".join(loose.stdout.split())
    by_point = "rule=point:judge_kappa>=0.6"
    assert proctor("gate", "latest", "--require", by_point, "-r", str(results)).returncode == 0
    strict = proctor(
        "gate", "latest", "--require", "rule=point:judge_kappa>=0.7", "-r", str(results)
    )
    assert strict.returncode == 1 and "0.625" in strict.stdout
    # Repeats of a deterministic judge agree with themselves every time.
    again = proctor(
        "judge",
        "latest",
        "--judge",
        model,
        "--against",
        str(LABELS),
        "--repeats",
        "2",
        "-r",
        str(results),
    )
    assert again.returncode == 0, again.stderr
    assert "self-consistency over 2 repeats: 100.0% of 20 answers" in again.stdout


def test_the_judges_accuracy_is_corrected_by_its_labels(
    judged: tuple[Path, StubHandle], tmp_path: Path
) -> None:
    """Half the answers labelled: the judge's pass rate over all 20, and the same corrected
    with prediction-powered inference by the 10 labels, beside it (terminal and JSON)."""
    results, judge = judged
    model = f"openai-compat/judge-bot@{judge.base_url}"
    lines = LABELS.read_text(encoding="utf-8").splitlines()
    half = tmp_path / "half.csv"
    half.write_text("\n".join(lines[:11]) + "\n", encoding="utf-8")
    done = proctor("judge", "latest", "--judge", model, "--against", str(half), "-r", str(results))
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "corrected by 10 labels (prediction-powered inference)" in text
    (path,) = results.glob("runs/*/judge_validation.json")
    stored = json.loads(path.read_text(encoding="utf-8"))["judges"][model]
    (corrected,) = stored["corrected"].values()
    assert (corrected["labelled"], corrected["unlabelled"]) == (10, 10)
    assert corrected["low"] <= corrected["estimate"] <= corrected["high"]
    assert f"{corrected['estimate'] * 100:.1f}%" in text


def test_a_judge_that_always_prefers_the_first_answer_shows_its_bias(
    judged: tuple[Path, StubHandle], tmp_path: Path
) -> None:
    results, _ = judged
    labels = tmp_path / "pairs.csv"
    ids = [line.split(",")[0] for line in LABELS.read_text(encoding="utf-8").splitlines()[1:]]
    labels.write_text("id,label\n" + "".join(f"{i},tie\n" for i in ids), encoding="utf-8")
    first = 'fake/const:{"winner": "1", "reason": "the first one"}'
    done = proctor(
        "judge",
        "latest",
        "--judge",
        first,
        "--pairwise",
        "--against",
        str(labels),
        "-r",
        str(results),
    )
    assert done.returncode == 0, done.stderr
    assert "position bias: 100.0% of 20 pairs" in done.stdout
    assert "agreement 0.0% (0 of 20)" in done.stdout  # every verdict "inconsistent"


def test_a_bad_labels_file_is_refused_before_any_judge_call(
    judged: tuple[Path, StubHandle], tmp_path: Path
) -> None:
    results, judge = judged
    bad = tmp_path / "bad.csv"
    bad.write_text("id,label\nsum-01-quarter,pass\nsum-02-incident,maybe\n", encoding="utf-8")
    before = judge.stats().requests
    done = proctor(
        "judge",
        "latest",
        "--judge",
        f"openai-compat/j@{judge.base_url}",
        "--against",
        str(bad),
        "-r",
        str(results),
    )
    assert done.returncode == 2 and f"{bad}:3: field 'label'" in done.stderr
    assert judge.stats().requests == before
