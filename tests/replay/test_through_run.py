"""The user's path: `proctor run TASK --dataset F -m openai-compat/NAME@URL` against
`python -m proctor.replay --replies F`, then the run's samples.csv read back."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import Replay


def test_proctor_run_grades_the_replayed_replies(tmp_path: Path, replay_process: Replay) -> None:
    rows = [
        ("r1", "[replay case 1] What is 6 × 7?", "42", "The answer is \\boxed{42}."),
        ("r2", "[replay case 2] What is 2 + 2?", "4", "The answer is \\boxed{5}."),
        ("r3", "[replay case 3] What is 1 + 1?", "2", None),  # no marker: the fixed reply
    ]
    dataset, replies = tmp_path / "replay.jsonl", tmp_path / "replies.json"
    with dataset.open("w", encoding="utf-8") as d:
        for sid, question, target, _ in rows:
            sample = {"id": sid, "input": question, "target": target, "answer_type": "text"}
            d.write(json.dumps(sample, ensure_ascii=False) + "\n")
    table = {q.split("]")[0] + "]": reply for _, q, _, reply in rows if reply is not None}
    replies.write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    results = tmp_path / "results"
    with replay_process("--replies", str(replies), "--model", "replayed") as (proc, url):
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "math500", "--dataset", str(dataset),
             "-m", f"openai-compat/replayed@{url}", "-r", str(results)],
            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=300,
        )  # fmt: skip
        assert proc.poll() is None, "the replay server stopped during the run"
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        graded = {r["sample_id"]: r for r in csv.DictReader(f)}
    assert graded["r1"]["raw_response"] == "The answer is \\boxed{42}."
    assert graded["r1"]["outcome"] == "correct"
    assert graded["r2"]["outcome"] != "correct"
    assert graded["r3"]["raw_response"] == "The stub has no scripted reply for this prompt."
    assert graded["r3"]["outcome"] != "correct"
