"""One run made through the CLI, for tests that read what a finished run leaves (export, CI
outputs): gsm8k on a file of three questions, two models on `proctor.replay` (alpha: one
right, one wrong, one without an answer; beta: all right), two replies per item."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from proctor.replay import serve_replies

QUESTIONS = (
    ("q1", "Tom has 3 apples and buys 4 more. How many apples does he have?", "7"),
    ("q2", "A box holds 6 eggs. How many eggs are in 3 boxes?", "18"),
    ("q3", "There are 10 birds and 4 fly away. How many stay?", "6"),
)
ALPHA = {
    "[q1]": "3 + 4 = 7. The answer is 7.",
    "[q2]": "The answer is 17.",
    "[q3]": "I cannot say.",
}
BETA = {"[q1]": "The answer is 7.", "[q2]": "The answer is 18.", "[q3]": "The answer is 6."}


@dataclass(frozen=True)
class MadeRun:
    results: Path
    run_id: str
    models: tuple[str, str]
    """alpha's model string, beta's."""


def proctor(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m proctor ARGS` as a child process (no proxy, wide plain output; `env` added)."""
    base = {k: v for k, v in os.environ.items()
            if "proxy" not in k.lower() and k != "GITHUB_STEP_SUMMARY"}  # fmt: skip
    env = {**base, "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "proctor", *(str(a) for a in args)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def make_run(folder: Path, *more: str | Path, env: dict[str, str] | None = None) -> MadeRun:
    """The run, in `folder`/results; `more`: more options of `proctor run` (e.g. --junit)."""
    dataset = folder / "questions.jsonl"
    with dataset.open("w", encoding="utf-8") as f:
        for sample_id, question, target in QUESTIONS:
            row = {"id": sample_id, "input": f"[{sample_id}] {question}", "target": target,
                   "answer_type": "integer"}  # fmt: skip
            f.write(json.dumps(row) + "\n")
    results = folder / "results"
    with (
        serve_replies(tuple(ALPHA.items()), "alpha") as a,
        serve_replies(tuple(BETA.items()), "beta") as b,
    ):
        models = (f"openai-compat/alpha@{a.base_url}", f"openai-compat/beta@{b.base_url}")
        done = proctor(
            "run", "gsm8k", "--dataset", dataset, "-m", models[0], "-m", models[1],
            "--samples", "2", "--temperature", "0.5", "-r", results, *more, env=env,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (run_dir,) = (results / "runs").iterdir()
    return MadeRun(results, run_dir.name, models)
