"""A prompt matrix through the CLI against a loopback stub: `--prompt A --prompt B` × two models
is one run of four variants answered on the same items, each asked with its own prompt (the stub
sees both prompts of every item, once per model), compared paired in results.json. A repeated
option that cannot be a matrix is refused with exit 2, nothing written."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from proctor.tasks.arithmetic import load
from proctor.tasks.registry import get_task
from support.stub import StubConfig, prompt_key, run_stub

pytestmark = pytest.mark.slow

N = 12


def _proctor(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def test_two_prompts_by_two_models_are_four_paired_variants(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig(seed=2, correct_rate=0.7)) as stub:
        models = [stub.model.replace("stub@", f"{k}@") for k in "ab"]
        done = _proctor(
            "run", "arithmetic", "--n", str(N), "--prompt", "A", "--prompt", "B",
            "-m", models[0], "-m", models[1], "-r", str(results),
        )  # fmt: skip
        stats = stub.stats()
    assert done.returncode == 0, done.stdout + done.stderr
    variants = {f"{m}#prompt={p}": p for m in models for p in "AB"}

    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((run_id, stored_models),) = db.execute("SELECT id, models FROM runs").fetchall()
        rows = db.execute("SELECT model, prompt_variant, sample_id, status FROM records").fetchall()
    assert json.loads(stored_models) == list(variants)
    assert len(rows) == 4 * N and {r[3] for r in rows} == {"ok"}
    for model, variant in variants.items():
        mine = [r for r in rows if r[0] == model]
        assert {r[1] for r in mine} == {variant}
    items = {m: {r[2] for r in rows if r[0] == m} for m in variants}
    assert len({frozenset(s) for s in items.values()}) == 1, "the variants' items differ"

    # each item was asked with each prompt, by each model: the prompts really differ
    task = get_task("arithmetic")
    samples = load(None, N).samples
    keys = {
        prompt_key(task.build_prompt(s, v, "en").messages[-1].content)
        for s in samples
        for v in "AB"
    }
    assert len(keys) == 2 * N
    assert stats.by_prompt == dict.fromkeys(keys, 2)

    doc = json.loads((results / "runs" / run_id / "results.json").read_text())
    assert sorted(m["model"] for m in doc["models"]) == sorted(variants)
    assert {m["n_items"] for m in doc["models"]} == {N}
    assert doc["paired"], "the variants are compared paired"
    for pair in doc["paired"]:
        assert {pair["a"], pair["b"]} <= set(variants) and pair["n"] == N
        assert pair["test"] == "exact McNemar" and pair["p_adjusted"] is not None


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--limit", "3", "--limit", "4"), "--limit given twice"),
        (("--temperature", "0", "--temperature=0.0"), "--temperature names the same value twice"),
        (("--temperature", "0", "--temperature", "2.5"), "temperature 2.5 is out of range"),
        (("--prompt", "A", "--prompt", "a"), "--prompt names the same value twice"),
        (("--prompt", "A", "--prompt", "C"), "unknown prompt variant 'C'"),
        (("--prompt", "A", "--prompt", "B", "gsm8k"), "unknown prompt variant 'A' for task gsm8k"),
        (("--lang", "en", "--lang", "zh", "gsm8k"), "task gsm8k (prompt zero-shot, lang zh): this "
         "benchmark's prompts are in English only, not 'zh'"),
    ],
)
def test_a_repeat_that_cannot_be_a_matrix_is_refused(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    done = _proctor("run", "arithmetic", *args, "-m", "fake/const:1", "-r", str(tmp_path / "r"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stdout + done.stderr
    assert not (tmp_path / "r").exists()


def test_a_matrix_of_several_tasks_is_each_tasks_own(tmp_path: Path) -> None:
    # Several tasks take the matrix as they take one prompt, language or temperature: each
    # task's run has a variant per combination.
    results = tmp_path / "r"
    done = _proctor("run", "arithmetic", "gsm8k", "--limit", "2", "--temperature", "0",
                    "--temperature", "1", "-m", "fake/const:1", "-r", str(results))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        runs = db.execute("SELECT task, models FROM runs ORDER BY task").fetchall()
        counts = db.execute("SELECT model, count(*) FROM records GROUP BY run_id, model").fetchall()
    variants = [f"fake/const:1#temperature={t}" for t in ("0.0", "1.0")]
    assert [(task, json.loads(models)) for task, models in runs] == [
        ("arithmetic", variants), ("gsm8k", variants)
    ]  # fmt: skip
    assert sorted(counts) == sorted((v, 2) for v in variants for _ in range(2))
