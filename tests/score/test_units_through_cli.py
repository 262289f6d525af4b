"""Units, scale words and number words through the public path: `proctor run gsm8k --dataset F`
against the loopback stub replaying rows of the never-correct and maths tables, then the run's
samples.csv read back: every row graded as its table says (gsm8k rows of the maths table too)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from support.stub import StubConfig, run_stub

CASES = Path(__file__).parents[1]
NEVER = CASES / "score" / "cases" / "grading" / "never_correct.json"
RIGHT = CASES / "extract" / "cases" / "benchmarks" / "maths_extraction_cases.json"
PREFIXES = ("gs_cn_", "gs_words_", "gs_dollars_", "gs_tonnes_")


def _rows() -> list[dict[str, str]]:
    never = [
        {**r, "want": r.get("expect", "wrong")}
        for r in json.loads(NEVER.read_text(encoding="utf-8"))["rows"]
        if r["id"].startswith(PREFIXES)
    ]
    right = [
        {**r, "id": f"maths{i}", "want": r["outcome"]}
        for i, r in enumerate(json.loads(RIGHT.read_text(encoding="utf-8"))["cases"])
        if r["task"] == "gsm8k" and r.get("finish_reason", "stop") == "stop"
    ]
    return never + right


def test_units_and_number_words_through_proctor_run_gsm8k(tmp_path: Path) -> None:
    rows = _rows()
    assert len(rows) >= 20
    dataset, replies = tmp_path / "units.jsonl", {}
    with dataset.open("w", encoding="utf-8") as d:
        for n, row in enumerate(rows):
            key = f"[units case {n:03d}]"  # no row id: "tonnes" in one would be a unit named
            question = f"{key} {row.get('input', '')}"
            sample = {"id": row["id"], "input": question, "target": row["target"]}
            d.write(json.dumps(sample, ensure_ascii=False) + "\n")
            replies[key] = row["text"]
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    results = tmp_path / "results"
    config = StubConfig(answer_mode="script", replies=tuple(replies.items()))
    with run_stub(config) as stub:
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", "gsm8k", "--dataset", str(dataset),
             "-m", stub.model, "-r", str(results), "--concurrency", "4"],
            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        graded = {r["sample_id"]: r for r in csv.DictReader(f)}
    wrong = [
        f"{r['id']}: {graded[r['id']]['outcome']} (want {r['want']}) {r['text']!r}"
        for r in rows
        if graded[r["id"]]["outcome"] != r["want"]
    ]
    assert not wrong, "\n".join(wrong)
