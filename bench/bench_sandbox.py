"""The code sandbox: time per HumanEval problem, and what bombs cost the host.

    .venv/bin/python bench/bench_sandbox.py [--problems N] [--skip-bombs]

Part 1 grades every HumanEval canonical solution through the task's own grader (one at a time,
so the figure is the latency of one problem, then two at a time as `proctor run` does on two
cores) and prints seconds per problem against a baseline measured in the same run: a bare
`python -c pass` start-up of the same interpreter.

Part 2 (when the sandbox module has `measure_bomb`) runs memory, disk, inode, process and output
bombs and prints, measured from the host: the peak RSS of the program's process tree, the bytes
and files written to the host's temporary folder, the outcome, and that no folder is left.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from proctor.datasets import benchmarks  # noqa: E402
from proctor.tasks import humaneval  # noqa: E402
from proctor.types import Record, Sample, Score, Usage  # noqa: E402


def _record(sample: Sample) -> Record:
    return Record(
        run_id="bench",
        model="canonical",
        sample_id=sample.id,
        status="ok",
        text=f"```python\n{sample.input}{sample.target}\n```",
        finish_reason="stop",
        usage=Usage(0, 0),
        latency_s=0.0,
        attempts=1,
        prompt_variant="zero-shot",
        lang="en",
    )


def _grade(sample: Sample) -> tuple[Score, float]:
    start = time.perf_counter()
    score = humaneval.TASK.grade(_record(sample), sample)
    return score, time.perf_counter() - start


def _bare_start(n: int = 20) -> float:
    exe = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    times = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([exe, "-I", "-S", "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def humaneval_part(limit: int | None) -> None:
    samples = benchmarks.humaneval()[:limit]
    bare = _bare_start()
    one_by_one = [_grade(s) for s in samples]
    passed = sum(score.outcome == "correct" for score, _ in one_by_one)
    per = [t for _, t in one_by_one]
    # a second pass, in parallel, with fresh programs (a trailing comment defeats the cache)
    fresh = [
        Sample(s.id, s.input, s.target + f"\n# pass 2 {i}\n", s.category, s.difficulty,
               s.answer_type, s.decimals, s.metadata)
        for i, s in enumerate(samples)
    ]  # fmt: skip
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        parallel = list(pool.map(_grade, fresh))
    wall = time.perf_counter() - start
    passed_parallel = sum(score.outcome == "correct" for score, _ in parallel)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f}")
    print(f"baseline: bare interpreter start-up {bare * 1000:.1f} ms (median of 20)")
    print(
        f"HumanEval canonical, one at a time: {passed}/{len(samples)} correct; per problem"
        f" median {statistics.median(per) * 1000:.0f} ms, mean {statistics.mean(per) * 1000:.0f}"
        f" ms, max {max(per) * 1000:.0f} ms = {statistics.median(per) / bare:.1f}x the bare"
        " start-up"
    )
    print(
        f"HumanEval canonical, 2 at a time: {passed_parallel}/{len(samples)} correct in"
        f" {wall:.1f} s = {wall / len(samples) * 1000:.0f} ms per problem"
    )
    slow = sorted(zip(per, (s.id for s in samples), strict=True), reverse=True)[:3]
    print("slowest: " + ", ".join(f"{sid} {t * 1000:.0f} ms" for t, sid in slow))
    failed = [(s.id, sc.explanation[:160]) for s, (sc, _) in zip(samples, one_by_one, strict=True)
              if sc.outcome != "correct"]  # fmt: skip
    for sid, why in failed[:5]:
        print(f"  not correct: {sid}: {why}")


def bombs_part() -> None:
    try:
        from proctor.sandbox.bombs import BOMBS, measure_bomb  # type: ignore[attr-defined]
    except ImportError:
        print("bombs: this version of the sandbox has no proctor.sandbox.bombs (skipped)")
        return
    print(f"{'bomb':<22} {'outcome':<14} {'peak RSS tree':>14} {'host bytes':>11} "
          f"{'host files':>10} {'left':>5}  detail")  # fmt: skip
    for name in BOMBS:
        m = measure_bomb(name)
        print(
            f"{name:<22} {m.status:<14} {m.peak_rss_bytes / 2**20:>10.1f} MiB"
            f" {m.host_bytes_written:>11} {m.host_files_created:>10} {m.folders_left:>5}"
            f"  {m.detail[:70]}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--problems", type=int, default=None, help="first N HumanEval problems")
    p.add_argument("--skip-bombs", action="store_true")
    a = p.parse_args()
    humaneval_part(a.problems)
    if not a.skip_bombs:
        bombs_part()


if __name__ == "__main__":
    main()
