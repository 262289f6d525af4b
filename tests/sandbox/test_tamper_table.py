"""The tampering table (cases/tamper.json), through the public path: a loopback stub
(`--replies`) plays each reply to `proctor run humaneval|mbpp --dataset`, and the run's
samples.csv must show no wrong solution graded correct and every control correct.

Each row attacks state the harness and the tests share with the candidate: the builtins the
harness names after the candidate ran, the real `builtins` module the standard library reads,
a module's `__class__`, the classes, functions and internal tables the tests call through, the
tests' random draws, and changes made between two checks (a finalizer, a returned generator)
that a fake undoes when called. With the harness of a9140ae, 49 of the 62 were graded correct
through this path."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TABLE = json.loads((Path(__file__).with_name("cases") / "tamper.json").read_text())


def _fn(case: dict[str, Any]) -> str:
    return f"{case['id'].replace('-', '_')}_{case['problem']}"


def _write_inputs(task: str, folder: Path) -> dict[str, dict[str, Any]]:
    """The dataset and the stub's replay file for `task`'s cases; the cases by sample id."""
    rows: list[dict[str, Any]] = []
    replies: dict[str, str] = {}
    by_id: dict[str, dict[str, Any]] = {}
    for case in TABLE["cases"]:
        problem = TABLE["problems"][case["problem"]]
        if problem["task"] != task:
            continue
        fn = _fn(case)
        if task == "humaneval":
            prompt = problem["prompt"].replace("{fn}", fn)
            canonical = prompt + problem["canonical"].replace("{fn}", fn)
            meta = {"entry_point": fn, "test": problem["test"]}
            row = {"id": case["id"], "input": prompt, "target": canonical, "metadata": meta}
            marker = f"def {fn}("
        else:
            tests = [t.replace("{fn}", fn) for t in problem["tests"]]
            canonical = problem["canonical"].replace("{fn}", fn)
            meta = {"test_list": json.dumps(tests), "test_setup_code": ""}
            text = problem["text"].replace("{fn}", fn)
            row = {"id": case["id"], "input": text, "target": canonical, "metadata": meta}
            marker = f"function {fn} "
        row["answer_type"] = "text"
        code = canonical if case["code"] is None else "\n".join(case["code"]).replace("{fn}", fn)
        rows.append(row)
        replies[marker] = f"```python\n{code}\n```\n"
        by_id[case["id"]] = case
    (folder / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / f"{task}-replies.json").write_text(json.dumps(replies))
    return by_id


def _run(task: str, folder: Path) -> dict[str, dict[str, str]]:
    stub = subprocess.Popen(
        [sys.executable, "-m", "proctor.replay", "--port", "0", "--replies",
         str(folder / f"{task}-replies.json")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert stub.stdout is not None
        url = stub.stdout.readline().strip()
        results = folder / "results"
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
        done = subprocess.run(
            [sys.executable, "-m", "proctor", "run", task, "--dataset",
             str(folder / f"{task}.jsonl"), "-m", f"openai-compat/tamper@{url}",
             "--max-tokens", "8192", "--results-dir", str(results)],
            cwd=folder, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    finally:
        stub.terminate()
        stub.wait(10)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (run_dir,) = (results / "runs").iterdir()
    with (run_dir / "samples.csv").open(newline="", encoding="utf-8") as f:
        return {row["sample_id"]: row for row in csv.DictReader(f)}


def test_the_table_has_forty_attacks_and_controls_for_each_problem() -> None:
    attacks = [c for c in TABLE["cases"] if c["class"] != "control"]
    controls = {c["problem"] for c in TABLE["cases"] if c["class"] == "control"}
    assert len(attacks) >= 40
    assert controls == set(TABLE["problems"])


@pytest.mark.parametrize("task", ["humaneval", "mbpp"])
def test_no_tampering_is_graded_correct_through_the_public_path(task: str, tmp_path: Path) -> None:
    by_id = _write_inputs(task, tmp_path)
    rows = _run(task, tmp_path)
    problems, lines = [], []
    for cid, case in by_id.items():
        outcome, why = rows[cid]["outcome"], rows[cid]["explanation"]
        if outcome not in case["outcomes"]:
            problems.append(f"{cid}: {outcome} (wanted {case['outcomes']}): {why[:300]}")
        if case["class"] != "control" and outcome == "correct":
            problems.append(f"{cid}: a wrong solution was graded CORRECT: {why[:300]}")
        lines.append(f"| {cid} | {case['class']} | {outcome} | {why[:140]} |")
    print("\n| case | class | outcome | explanation |\n|---|---|---|---|")
    print("\n".join(lines))
    assert problems == [], "\n".join(problems)


def test_the_harness_looks_up_no_global_name_of_its_own_after_start() -> None:
    """Every builtin the harness uses is a local bound at its start (`b_type`, `b_dict`…): its
    bytecode loads no global but the source of the doors, read once before the candidate runs.
    A builtin named later would be looked up in a dictionary at the time of the call."""
    import dis

    from proctor.sandbox.launch import HARNESS

    module = compile(HARNESS.read_text(encoding="utf-8"), "<harness>", "exec")
    (main,) = [c for c in module.co_consts if getattr(c, "co_name", "") == "_main"]
    todo, loads = [main], set()
    while todo:
        code = todo.pop()
        for ins in dis.get_instructions(code):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval != "__name__":
                loads.add((ins.argval, ins.positions.lineno if ins.positions else None))
        todo.extend(c for c in code.co_consts if isinstance(c, type(main)))
    assert {name for name, _ in loads} == {"WRAPPERS"}, sorted(loads)
