"""`proctor leaderboard` over what `proctor run` stored, against loopback stubs: three models
(one stub each: always right, right half the time, always off by one) asked a set of two tasks,
and one of them a third task alone. Every cell of the board equals its run's results.json;
the task a model never ran shows as missing; the ranking's neighbours differ significantly; the
terminal board fits 80 columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from support.stub import StubConfig, StubHandle, run_stub

pytestmark = pytest.mark.slow

N = 20


@pytest.fixture
def stubs() -> Iterator[list[StubHandle]]:
    configs = (
        StubConfig(seed=1),
        StubConfig(seed=1, correct_rate=0.5),
        StubConfig(seed=1, answer_mode="wrong"),
    )
    with ExitStack() as stack:
        yield [stack.enter_context(run_stub(c)) for c in configs]


def _proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_leaderboard_numbers_are_the_runs_numbers(tmp_path: Path, stubs: list[StubHandle]) -> None:
    results = str(tmp_path / "results")
    models = [s.model.replace("stub@", f"{name}@") for s, name in zip(stubs, "abc", strict=True)]
    first = _proctor(
        "run", "arithmetic", "gsm8k", "--limit", str(N), "-m", models[0], "-m", models[1],
        "-m", models[2], "-r", results,
    )  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    alone = _proctor("run", "arithmetic", "--limit", "4", "--seed", "9", "-m", models[0],
                     "-r", results)  # fmt: skip
    assert alone.returncode == 0, alone.stdout + alone.stderr
    other = _proctor("run", "math500", "--limit", "3", "-m", models[0], "-r", results)
    assert other.returncode == 0, other.stdout + other.stderr

    done = _proctor("leaderboard", "--json", "-r", results)
    assert done.returncode == 0, done.stderr
    board = json.loads(done.stdout)
    rows = {r["model"]: r for r in board["models"]}
    assert set(rows) == set(models)
    cells = 0
    for model, row in rows.items():
        for task, cell in row["tasks"].items():
            if task == "math500" and model != models[0]:
                assert cell["state"] == "missing" and cell["accuracy"] is None
                continue
            doc = json.loads((Path(results) / "runs" / cell["run_id"] / "results.json").read_text())
            (mine,) = [m for m in doc["models"] if m["model"] == model]
            for key in ("accuracy", "ci_low", "ci_high", "n_scored", "n_items"):
                assert cell[key] == mine[key], (model, cell["run_id"], key)
            assert cell["state"] == "complete"
            cells += 1
    assert cells == 3 * 2 + 1
    # the newest complete arithmetic run of model a is the one of 4 items, asked alone
    assert rows[models[0]]["tasks"]["arithmetic"]["n_items"] == 4
    assert any("1 older result" in n for n in board["notes"])

    # ranked by the mean of their tasks' accuracies; a > b > c, each significantly
    order = [r["model"] for r in board["models"]]
    assert order == models
    means = [r["mean"] for r in board["models"]]
    for r in board["models"]:
        accs = [c["accuracy"] for c in r["tasks"].values() if c["accuracy"] is not None]
        assert r["mean"] == pytest.approx(sum(accs) / len(accs))
        assert r["mean_ci_low"] <= r["mean"] <= r["mean_ci_high"]
    assert means[1] > means[2]  # a ranks first having more tasks scored, whatever its mean
    assert [r["tasks_scored"] for r in board["models"]] == [3, 2, 2]
    b_vs_c = board["models"][1]["versus_next"]
    assert b_vs_c["model"] == models[2] and b_vs_c["significant"]
    assert b_vs_c["p_adjusted"] is not None and b_vs_c["n"] == 2 * N

    # a set's board expects its models × tasks: nothing of the set is dropped
    ((set_id,),) = [(line.split()[1],) for line in first.stdout.splitlines()
                    if line.startswith("set set-")][:1]  # fmt: skip
    of_set = json.loads(_proctor("leaderboard", set_id, "--json", "-r", results).stdout)
    assert of_set["tasks"] == ["arithmetic", "gsm8k"]
    assert {r["tasks"]["arithmetic"]["n_items"] for r in of_set["models"]} == {N}

    text = _proctor("leaderboard", "-r", results)
    assert text.returncode == 0
    wide = [line for line in text.stdout.splitlines() if len(line) > 80]
    assert not wide, wide
    assert "gsm8k" in text.stdout and "missing" in text.stdout

    only = json.loads(_proctor("leaderboard", "--json", "--task", "gsm8k", "-r", results).stdout)
    assert only["tasks"] == ["gsm8k"]
