"""Real model replies graded through the public path, against their authors' verdicts.

    .venv/bin/python bench/real_outputs.py [DATA_DIR] [--out FILE]

DATA_DIR (default ../shared/datasets/gsm8k-real-outputs, see its README.md) holds the 1,319
GSM8K replies of ToRA-70B and of ToRA-Code-34B with the verdict their authors' grader gave each.
Each model's replies are played by `proctor.replay` (each keyed by its question) to `proctor run
gsm8k --dataset DATA_DIR/tora-70b/dataset.jsonl`; the run's samples.csv is read back and each
verdict compared with the authors'. Prints, per model, proctor's accuracy, the authors', how many
items agree, and every item where they differ (with proctor's extraction, rule and the reply's
last lines), so a reader can decide who is right; --out writes those items as JSON.

The authors' grader is not always right (it takes 0.05 for 5: a percent tolerance), so a
disagreement is something to read, not a proctor error by itself.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PROCTOR, child_env  # noqa: E402

from proctor.replay import serve_replies  # noqa: E402

MODELS = ("tora-70b", "tora-code-34b")
DEFAULT_DATA = REPO.parent / "shared" / "datasets" / "gsm8k-real-outputs"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def graded_by_proctor(data: Path, model: str, work: Path) -> dict[str, dict[str, str]]:
    """sample id → its samples.csv row, from `proctor run gsm8k` over the replayed replies."""
    replies = {row["input"]: row["raw_output"] for row in _jsonl(data / model / "replay.jsonl")}
    results = work / model
    with serve_replies(tuple(replies.items()), model) as server:
        done = subprocess.run(
            [*PROCTOR, "run", "gsm8k", "--dataset", str(data / "tora-70b" / "dataset.jsonl"),
             "-m", f"openai-compat/{model}@{server.base_url}", "-r", str(results),
             "--max-tokens", "4096", "--concurrency", "16", "--cache", "off"],
            capture_output=True, text=True, env=child_env(), timeout=1800,
        )  # fmt: skip
    if done.returncode not in (0, 1):  # 1: the run's gate of accuracy, not a failure to run
        raise SystemExit(f"proctor run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    (samples_csv,) = results.glob("runs/*/samples.csv")
    with samples_csv.open(encoding="utf-8", newline="") as f:
        return {row["sample_id"]: row for row in csv.DictReader(f)}


def compare(data: Path, model: str, ours: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    authors = {row["id"]: row for row in _jsonl(data / model / "authors.jsonl")}
    replies = {row["id"]: row["raw_output"] for row in _jsonl(data / model / "replay.jsonl")}
    assert set(ours) == set(authors), f"{model}: {len(ours)} graded of {len(authors)}"
    differ = []
    for sid, row in sorted(ours.items()):
        a = authors[sid]
        if (row["outcome"] == "correct") != a["authors_correct"]:
            differ.append({
                "model": model, "id": sid, "target": a["target"], "ours": row["outcome"],
                "rule": row.get("rule", ""), "extracted": row.get("extracted", ""),
                "authors_pred": a["authors_pred"], "authors_correct": a["authors_correct"],
                "reply_end": replies[sid][-300:],
            })  # fmt: skip
    n = len(authors)
    ours_right = sum(r["outcome"] == "correct" for r in ours.values())
    theirs = sum(a["authors_correct"] for a in authors.values())
    print(
        f"{model}: proctor {ours_right}/{n} correct, authors {theirs}/{n};"
        f" agree on {n - len(differ)} of {n}"
    )
    for d in differ:
        print(
            f"  {d['id']} target {d['target']}: proctor {d['ours']} ({d['rule']},"
            f" {d['extracted']!r}); authors {d['authors_correct']} ({d['authors_pred']!r})"
        )
    return differ


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, help="write the items that differ here (JSON)")
    a = p.parse_args()
    differ: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        for model in MODELS:
            differ += compare(a.data, model, graded_by_proctor(a.data, model, Path(work)))
    if a.out:
        a.out.write_text(json.dumps(differ, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
