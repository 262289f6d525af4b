"""A workflow's wall-time budget is one hard deadline: a 3 s budget against a 10 s server.

Runs `proctor workflow` (the CLI, in its own process) on a two-step workflow whose model server
(the stub, in another process) takes 10 s a reply, with `--max-attempts 4` (before issue 22 each
attempt got a fresh timeout: ~14 s). Prints, for each repetition, the CLI's wall time, the
workflow's own wall time (from `workflow.json`), the outcome and exit code, and, measured in the
same run as the baseline, the wall time of a CLI start that calls nothing (`proctor workflow
--help`) so the start-up is not charged to the deadline. Target: the workflow stops within 3.5 s
of its start (outcome incomplete, stopped_by wall_time, exit 5).

    .venv/bin/python bench/bench_workflow_deadline.py [--reps 3] [--budget 3] [--latency 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import PROCTOR, child_env, stub_process


def _flow(budget: float) -> dict[str, object]:
    return {
        "id": "deadline-bench",
        "budget": {"max_tokens": 10000, "max_wall_s": budget, "max_tool_calls": 1},
        "steps": [
            {"id": "calc", "kind": "tool", "tool": "calculator",
             "args": {"expression": "121.7 * 15 / 100"}, "output": "gain"},
            {"id": "answer", "kind": "model", "prompt": "What is 17 + 25? ({{gain}})",
             "output": "answer", "max_tokens": 64},
        ],
        "required": [{"output": "answer", "check": "nonempty"}],
    }  # fmt: skip


def _timed(command: list[str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=child_env(), timeout=120)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--latency", type=float, default=10.0)
    args = parser.parse_args()
    rows = []
    with stub_process("--latency", str(args.latency)) as url, tempfile.TemporaryDirectory() as d:
        path = Path(d) / "flow.json"
        path.write_text(json.dumps(_flow(args.budget)), encoding="utf-8")
        with stub_process() as fast:
            start_up = [
                _timed([*PROCTOR, "workflow", str(path), "-m", f"openai-compat/stub@{fast}",
                        "-r", str(Path(d) / f"fast-{rep}")])[0]
                for rep in range(args.reps)
            ]  # fmt: skip
        base = statistics.median(start_up)
        for rep in range(args.reps):
            results = Path(d) / f"results-{rep}"
            command = [*PROCTOR, "workflow", str(path), "-m", f"openai-compat/stub@{url}",
                       "-r", str(results), "--max-attempts", "4", "--timeout", "60"]  # fmt: skip
            wall, code, output = _timed(command)
            (written,) = results.glob("runs/*/workflow.json")
            doc = json.loads(written.read_text(encoding="utf-8"))
            rows.append((wall, doc["wall_s"], doc["outcome"], doc["stopped_by"], code))
            if code != 5:
                print(output)
    print(f"budget {args.budget:g} s, server {args.latency:g} s a reply, --max-attempts 4")
    print(f"baseline: the same workflow against a stub that answers at once, CLI wall "
          f"(median of {args.reps}): {base:.2f} s")  # fmt: skip
    print("| rep | CLI wall s | CLI wall - baseline s | workflow wall s | / budget | outcome | exit |")
    print("|---:|---:|---:|---:|---:|---|---:|")
    for i, (wall, own, outcome, limit, code) in enumerate(rows, 1):
        print(f"| {i} | {wall:.2f} | {wall - base:.2f} | {own:.2f} | {own / args.budget:.2f}x "
              f"| {outcome} ({limit}) | {code} |")  # fmt: skip
    worst = max(own for _, own, *_ in rows)
    worst_cli = max(wall - base for wall, *_ in rows)
    ok = worst <= args.budget + 0.5 and all(r[2:] == ("incomplete", "wall_time", 5) for r in rows)
    print(f"worst workflow wall {worst:.2f} s, worst CLI wall past the baseline {worst_cli:.2f} s "
          f"(target <= {args.budget + 0.5:g} s: {'met' if ok else 'MISSED'})")  # fmt: skip


if __name__ == "__main__":
    main()
