"""Issue 33's classes through the public path: `proctor run TASK --dataset F` against the
loopback stub replaying each row's reply, then the run's samples.csv read back. Each class takes
its never-correct rows (cases/never_correct.json, by a tag in the row id) and its rows that must
stay right (benchmarks' maths_extraction_cases.json, by `class`): every row graded as its table
says, none of the never-correct ones correct."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.stub import StubConfig, run_stub

TESTS = Path(__file__).parents[1]
NEVER = TESTS / "score" / "cases" / "grading" / "never_correct.json"
RIGHT = TESTS / "extract" / "cases" / "benchmarks" / "maths_extraction_cases.json"

CLASSES: dict[str, tuple[str, ...]] = {
    "retraction": ("_retracted_",),
    "code_only": ("_code_",),
    "exact": ("_exact_",),
    "sequence": ("_sequence_",),
    "latex": ("_latex_",),
    "stating": (
        "_trigger_",
        "_answer_first_",
        "_percent_sign_",
        "_closing_detail_",
        "_label_number_",
    ),
    "rejected": ("_rejected_",),
    "solutions": ("_solution_",),
    "language": (
        "_cn_prose_",
        "_cn_answer_tonnes_",
        "_fr_reponse_",
        "_de_antwort_",
        "_es_respuesta_",
    ),
}
"""Each class: the tags its never-correct rows carry in their ids."""


def _rows(name: str) -> list[dict[str, Any]]:
    tags = CLASSES[name]
    never = [
        {**r, "want": r.get("expect", "wrong"), "never": True}
        for r in json.loads(NEVER.read_text(encoding="utf-8"))["rows"]
        if any(tag in r["id"] for tag in tags)
    ]
    right = [
        {**r, "id": f"{name}_right_{i}", "want": r["outcome"], "never": False}
        for i, r in enumerate(json.loads(RIGHT.read_text(encoding="utf-8"))["cases"])
        if r.get("class") == name
    ]
    return never + right


def _run(task: str, rows: list[dict[str, Any]], tmp_path: Path) -> dict[str, dict[str, str]]:
    """`proctor run TASK --dataset` on the rows; samples.csv rows by sample id."""
    folder = tmp_path / task
    folder.mkdir()
    dataset, replies = folder / "cases.jsonl", {}
    with dataset.open("w", encoding="utf-8") as d:
        for n, row in enumerate(rows):
            key = f"[trust case {n:03d}]"
            sample = {"id": row["id"], "input": f"{key} {row.get('input', '')}"}
            sample["target"] = row["target"]
            if task == "math500":
                sample["answer_type"] = "text"
            elif "answer_type" in row:
                sample["answer_type"] = row["answer_type"]
            d.write(json.dumps(sample, ensure_ascii=False) + "\n")
            replies[key] = row["text"]
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    results = folder / "results"
    config = StubConfig(answer_mode="script", replies=tuple(replies.items()))
    with run_stub(config) as stub:
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", task, "--dataset", str(dataset),
             "-m", stub.model, "-r", str(results), "--concurrency", "4"],
            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        return {r["sample_id"]: r for r in csv.DictReader(f)}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_class_through_proctor_run_dataset(name: str, tmp_path: Path) -> None:
    rows = _rows(name)
    assert sum(r["never"] for r in rows) >= 3, "a class has its never-correct rows"
    failures = []
    for task in sorted({r["task"] for r in rows}):
        mine = [r for r in rows if r["task"] == task]
        graded = _run(task, mine, tmp_path)
        for r in mine:
            got = graded[r["id"]]
            if got["outcome"] != r["want"] or (r["never"] and got["outcome"] == "correct"):
                failures.append(f"{task} {r['id']}: {got['outcome']} (want {r['want']})"
                                f" {r['text'][:80]!r}")  # fmt: skip
    assert not failures, "\n".join(failures)
