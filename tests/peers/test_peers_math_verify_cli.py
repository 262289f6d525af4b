"""Math-Verify's own test cases through the public path: `proctor run math500 --dataset F`
against `proctor.replay` (what `python -m proctor.replay --replies F` serves) replaying each
case's prediction, then the run's samples.csv read back. Every disagreement must be listed in
the table with its sentence; no false "correct"."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from proctor.replay import serve_replies
from proctor.report.samples_csv import inert

from . import walk


def _write_paper(rows: list[dict[str, object]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    dataset, replies = tmp_path / "math_verify.jsonl", {}
    with dataset.open("w", encoding="utf-8") as d:
        for i, row in enumerate(rows):
            key = f"[Math-Verify case {i:04d}]"
            sample = {"id": f"mv{i:04d}", "input": f"{key} {row['id']}", "target": row["target"]}
            d.write(json.dumps({**sample, "answer_type": "text"}, ensure_ascii=False) + "\n")
            replies[key] = str(row["reply"])
    return dataset, replies


def test_math_verify_cases_through_proctor_run_math500(tmp_path: Path) -> None:
    table = walk.load("math_verify")
    rows = table["rows"]
    dataset, replies = _write_paper(rows, tmp_path)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    results = tmp_path / "results"
    with serve_replies(tuple(replies.items()), "math-verify") as server:
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "math500", "--dataset", str(dataset),
             "-m", f"openai-compat/math-verify@{server.base_url}", "-r", str(results),
             "--max-tokens", "4096", "--concurrency", "8"],
            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        outcomes = {r["sample_id"]: r for r in csv.DictReader(f)}
    assert len(outcomes) == len(rows)
    verdicts = []
    for i, row in enumerate(rows):
        graded = outcomes[f"mv{i:04d}"]
        assert graded["raw_response"] == inert(str(row["reply"]))  # a formula cell is quoted
        ours = "correct" if graded["outcome"] == "correct" else "not_correct"
        verdicts.append(walk.Verdict(row, ours, ()))
    problems = walk.problems(verdicts)
    assert not problems, f"{len(problems)} rows:\n" + "\n".join(problems)
    default = [v for v in verdicts if v.default_options]
    agree = sum(v.agrees for v in default)
    assert len(default) == 261 and agree >= 259, f"{agree} of {len(default)} agree"
    assert not [v for v in verdicts if v.false_correct and v.default_options]
