"""`proctor export` read by the other harnesses' own code: Inspect AI's `read_eval_log`,
`list_eval_logs` and `inspect view`'s HTTP API; lm-eval's file-name readers, `make_table` and
result schema (tests/foreign/peer_readers.py). They live in a separate environment (their
dependencies are not ours): `bash scripts/setup-peers.sh` makes `.venv-peers`, or
PROCTOR_PEERS_PYTHON names another Python; without one these tests skip and say so."""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.replayed_run import MadeRun, make_run, proctor

ROOT = Path(__file__).resolve().parents[2]
READERS = Path(__file__).with_name("peer_readers.py")
SETUP = "bash scripts/setup-peers.sh (inspect-ai 0.3.285, lm-eval 0.4.13)"


def peers_python(module: str) -> str:
    """The peers' Python that imports `module`, or skip saying how to make one."""
    python = os.environ.get("PROCTOR_PEERS_PYTHON") or str(ROOT / ".venv-peers" / "bin" / "python")
    if not Path(python).is_file():
        pytest.skip(f"no peers environment at {python}: {SETUP}, or set PROCTOR_PEERS_PYTHON")
    found = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=120)
    if found.returncode != 0:
        pytest.skip(f"{module} is not installed in {python}: {SETUP}")
    return python


def read_with(python: str, kind: str, where: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    done = subprocess.run(
        [python, str(READERS), kind, str(where)],
        capture_output=True, text=True, timeout=400, env=env, cwd=where,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.fixture
def inspect_python() -> str:
    return peers_python("inspect_ai")


@pytest.fixture
def lm_eval_python() -> str:
    return peers_python("lm_eval")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> MadeRun:
    return make_run(tmp_path_factory.mktemp("export-peers"))


def graded(made: MadeRun) -> dict[tuple[str, str, int], tuple[str, str]]:
    """(model, sample, epoch) → (outcome, raw reply), from the run's samples.csv."""
    path = made.results / "runs" / made.run_id / "samples.csv"
    with path.open(encoding="utf-8", newline="") as f:
        return {(r["model"], r["sample_id"], int(r["epoch"])): (r["outcome"], r["raw_response"])
                for r in csv.DictReader(f)}  # fmt: skip


def test_inspects_own_reader_and_viewer_read_the_export(
    inspect_python: str, made: MadeRun, tmp_path: Path
) -> None:
    """Skips (before making a run) without the peers' Python."""
    logs = tmp_path / "logs"
    done = proctor("export", made.run_id, "--to", "inspect", "-o", logs, "-r", made.results)
    assert done.returncode == 0, done.stderr
    seen = read_with(inspect_python, "inspect", logs)
    names = sorted(p.name for p in logs.iterdir())
    assert len(names) == 2 and seen["listed"] == names  # Inspect lists them as its logs
    letter = {"correct": "C", "no_answer": "N"}
    expected = {k: (letter.get(o, "I"), reply) for k, (o, reply) in graded(made).items()}
    read = {}
    for log in seen["logs"].values():
        assert log["status"] == "success" and log["task"] == "gsm8k"
        for sample_id, epoch, value, completion in log["samples"]:
            read[(log["model"], sample_id, epoch - 1)] = (value, completion)
    assert read == expected  # every answer, with proctor's verdict, as Inspect read it
    accuracy = {log["model"]: log["accuracy"] for log in seen["logs"].values()}
    assert accuracy[made.models[0]] == pytest.approx(1 / 3)  # alpha: q1 right, twice
    assert accuracy[made.models[1]] == 1.0
    viewer = seen["viewer"]
    assert viewer["listing_status"] == 200 and sorted(viewer["logs"]) == names
    for name, log in viewer["logs"].items():
        assert log["status"] == 200 and log["samples"] == 6, name
        assert log["task"] == "gsm8k" and name.endswith(f"_{log['task_id']}.json")


def test_lm_evals_own_readers_read_the_export(
    lm_eval_python: str, made: MadeRun, tmp_path: Path
) -> None:
    out = tmp_path / "lm"
    done = proctor("export", made.run_id, "--to", "lm-eval", "-o", out, "-r", made.results)
    assert done.returncode == 0, done.stderr
    seen = read_with(lm_eval_python, "lm-eval", out)
    folders = seen["folders"]
    assert len(folders) == 2
    for name, folder in folders.items():
        assert folder["sanitized"] == name  # lm-eval's own name for the model's folder
        assert folder["tasks"] == ["gsm8k"] and folder["lines"] == 3
        assert folder["latest"] == folder["results"]
        assert len(set(folder["dates"])) <= 2  # results and samples of one run: one date
        assert "|gsm8k|" in folder["table"] and "|proctor|" in folder["table"]
    tables = " ".join(f["table"] for f in folders.values())
    assert "|0.3333|" in tables  # alpha: 1 of 3 documents right
