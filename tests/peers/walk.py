"""Walk a peer table (cases/*.json) with the proctor grader closest to the peer's scorer.

A row agrees when our verdict class (correct or not) is the peer's expected one. A row may carry
`disagree`: the one sentence that justifies our verdict where it differs; such a row must still
differ (a note that no longer applies is stale). No note can excuse a false "correct" (the peer
expects not correct, we say correct) on a row whose label holds under the peer's default
options; a row labelled under other options (`default_options: false`) may, with its note.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.datasets.schema import infer_answer_type
from proctor.replay import serve_replies
from proctor.tasks.registry import get_task
from proctor.types import Record, Sample, Score, Usage

CASES = Path(__file__).parent / "cases"


def load(name: str) -> dict[str, Any]:
    table: dict[str, Any] = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    ids = [row["id"] for row in table["rows"]]
    assert len(ids) == len(set(ids)), f"{name}: duplicate row ids"
    return table


def reply_text(row: dict[str, Any]) -> str:
    reply = row["reply"]
    if isinstance(reply, dict):  # a long reply kept short in the table
        return str(reply["repeat"]) * int(reply["times"]) + str(reply["then"])
    return str(reply)


def targets(row: dict[str, Any]) -> list[str]:
    return list(row["targets"]) if "targets" in row else [row["target"]]


def task_for(row: dict[str, Any], table: dict[str, Any]) -> str:
    """The proctor task whose grader stands in for the peer's scorer."""
    scorer = row.get("scorer")
    if scorer == "math":
        return "math500"
    if scorer == "match" and row.get("options", {}).get("numeric"):
        return "gsm8k"
    if scorer in ("match", "answer"):
        return "arithmetic"
    return str(table["task"])


def grade(task_name: str, reply: str, target: str, finish: str = "stop") -> Score:
    task = get_task(task_name)
    answer_type = infer_answer_type(target)[0] if task_name == "arithmetic" else "text"
    sample = Sample(id="peer", input="(peer case)", target=target, answer_type=answer_type)
    record = Record(
        "peer",
        "peer",
        "peer",
        "ok",
        reply,
        finish,
        Usage(),
        0.0,
        1,
        task.default_variant,
        "en",  # type: ignore[arg-type]
    )
    return task.grade(record, sample)


@dataclass(frozen=True)
class Verdict:
    row: dict[str, Any]
    ours: str
    """correct or not_correct"""
    scores: tuple[Score, ...]

    @property
    def agrees(self) -> bool:
        return self.ours == self.row["expected"]

    @property
    def false_correct(self) -> bool:
        return self.ours == "correct" and self.row["expected"] == "not_correct"

    @property
    def default_options(self) -> bool:
        return bool(self.row.get("default_options", True))


def verdict_of(scores: list[Score]) -> str:
    return "correct" if any(s.outcome == "correct" for s in scores) else "not_correct"


def walk(table: dict[str, Any]) -> list[Verdict]:
    verdicts = []
    for row in table["rows"]:
        task = task_for(row, table)
        scores = [grade(task, reply_text(row), t) for t in targets(row)]
        verdicts.append(Verdict(row, verdict_of(scores), tuple(scores)))
    return verdicts


def problems(verdicts: list[Verdict]) -> list[str]:
    """Rows that break the table's contract: a disagreement without its sentence, a stale
    sentence, or any false correct."""
    found = []
    for v in verdicts:
        row = v.row
        said = "; ".join(f"{s.outcome} {s.rule}: {s.explanation[:160]}" for s in v.scores)
        if v.false_correct and (v.default_options or "disagree" not in row):
            found.append(f"{row['id']}: FALSE CORRECT ({said})")
        elif not v.agrees and "disagree" not in row:
            found.append(f"{row['id']}: expected {row['expected']}, ours {v.ours} ({said})")
        elif v.agrees and "disagree" in row:
            found.append(f"{row['id']}: agrees now; remove its disagree note")
    return found


def through_cli(
    rows: list[dict[str, Any]], task_name: str, label: str, tmp_path: Path
) -> list[dict[str, str]]:
    """Each row's reply played by `proctor.replay` (what `python -m proctor.replay --replies F`
    serves) to `proctor run TASK --dataset F`; the run's samples.csv rows, in the rows' order."""
    dataset, replies = tmp_path / f"{label}.jsonl", {}
    with dataset.open("w", encoding="utf-8") as d:
        for i, row in enumerate(rows):
            key = f"[{label} case {i:04d}]"
            sample = {"id": f"c{i:04d}", "input": f"{key} {row['id']}", "target": row["target"]}
            d.write(json.dumps({**sample, "answer_type": "text"}, ensure_ascii=False) + "\n")
            replies[key] = reply_text(row)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    results = tmp_path / f"results-{label}"
    with serve_replies(tuple(replies.items()), label) as server:
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", task_name, "--dataset", str(dataset),
             "-m", f"openai-compat/{label}@{server.base_url}", "-r", str(results),
             "--max-tokens", "4096", "--concurrency", "8"],
            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        graded = {r["sample_id"]: r for r in csv.DictReader(f)}
    assert len(graded) == len(rows)
    return [graded[f"c{i:04d}"] for i in range(len(rows))]
