"""The code sandbox: time per HumanEval problem, and what bombs cost the host.

    .venv/bin/python bench/bench_sandbox.py [--problems N] [--skip-bombs] [--against REF]

Part 1 grades every HumanEval canonical solution through the task's own grader (one at a time,
so the figure is the latency of one problem, then two at a time as `proctor run` does on two
cores) and prints seconds per problem against a baseline measured in the same run: a bare
`python -c pass` start-up of the same interpreter.

With `--against REF` (a commit, e.g. the one before a change to the harness), part 1 instead
runs every problem twice in a row, once with REF's `sandbox/_harness.py` and once with the
working tree's, alternating which goes first, for `--rounds` rounds, and prints both times per
problem and their ratio: the two measured side by side, under the same load.

Part 2 (root only) runs memory, disk, inode, process, thread, output and deep-folder bombs and
prints, measured from the host: the peak RSS of the program's process tree (polling /proc for
its uid), the bytes its processes sent to block devices, then the files any bomb's uid owns
anywhere on the host's root file system, and the `proctor-sandbox-*` folders left.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from proctor.datasets import benchmarks
from proctor.sandbox import launch, run_job
from proctor.tasks import humaneval
from proctor.types import Record, Sample, Score, Usage


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


def interleaved_part(limit: int | None, ref: str, rounds: int) -> None:
    """REF's harness and this tree's, problem by problem, alternating which runs first."""
    repo = Path(__file__).resolve().parent.parent
    old_source = subprocess.run(
        ["git", "-C", str(repo), "show", f"{ref}:src/proctor/sandbox/_harness.py"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="proctor-bench-harness-"))
    (folder / "_harness.py").write_bytes(old_source)
    harnesses = {"old": folder / "_harness.py", "new": launch.HARNESS}
    samples = benchmarks.humaneval()[:limit]
    times: dict[str, list[float]] = {"old": [], "new": []}
    passed = {"old": 0, "new": 0}
    for round_ in range(rounds):
        for i, sample in enumerate(samples):
            job = humaneval.program(sample.target, sample)
            order = ["old", "new"] if (i + round_) % 2 == 0 else ["new", "old"]
            for name in order:
                launch.HARNESS = harnesses[name]
                launch.harness_argv.cache_clear()
                start = time.perf_counter()
                result = run_job(job, humaneval.LIMITS)
                times[name].append(time.perf_counter() - start)
                passed[name] += result.passed
    launch.HARNESS = harnesses["new"]
    launch.harness_argv.cache_clear()
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f}")
    runs = len(samples) * rounds
    for name in ("old", "new"):
        t = times[name]
        label = ref if name == "old" else "working tree"
        print(
            f"HumanEval canonical, harness of {label}: {passed[name]}/{runs} correct; per problem"
            f" median {statistics.median(t) * 1000:.1f} ms, mean {statistics.mean(t) * 1000:.1f} ms"
        )
    ratios = [n / o for n, o in zip(times["new"], times["old"], strict=True)]
    print(
        f"new / old: median {statistics.median(times['new']) / statistics.median(times['old']):.3f},"
        f" mean {statistics.mean(times['new']) / statistics.mean(times['old']):.3f},"
        f" median of per-problem ratios {statistics.median(ratios):.3f}"
    )


BOMBS: dict[str, str] = {
    "memory, one process": "keep = []\nwhile True:\n    keep.append(bytearray(64 << 20))\n",
    "memory, 4 processes": (
        "import os, time\n"
        "for _ in range(4):\n"
        "    if os.fork() == 0:\n"
        "        b = bytearray(800 << 20)\n"
        "        time.sleep(30)\n"
        "time.sleep(30)\n"
    ),
    "disk, 450 MiB": (
        "block = b'x' * (1 << 20)\n"
        "with open('big.bin', 'wb') as f:\n"
        "    for _ in range(450):\n"
        "        f.write(block)\n"
    ),
    "files, 20,000": "for i in range(20000):\n    open('f%d' % i, 'w').close()\n",
    "processes (fork bomb)": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    ),
    "threads, 1,000": (
        "import threading, time\n"
        "for _ in range(1000):\n"
        "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
    ),
    "output, endless": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "3,000 nested folders": (
        "import os\nfor _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\n"
    ),
}


class HostWatch:
    """Polls the host's /proc for the processes of one uid: the peak of their summed RSS and
    the bytes they sent to block devices (a tmpfs sends none)."""

    def __init__(self, uid: int) -> None:
        self.uid, self.peak_rss, self.disk_bytes = uid, 0, 0
        self._io: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> HostWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.disk_bytes = sum(self._io.values())

    def _poll(self) -> None:
        while not self._stop.wait(0.01):
            total = 0
            for pid in (p for p in os.listdir("/proc") if p.isdigit()):
                try:
                    if os.stat(f"/proc/{pid}").st_uid != self.uid:
                        continue
                    with open(f"/proc/{pid}/status") as f:
                        rss = next((ln for ln in f if ln.startswith("VmRSS:")), "VmRSS: 0 kB")
                    total += int(rss.split()[1]) * 1024
                    with open(f"/proc/{pid}/io") as f:
                        written = next(ln for ln in f if ln.startswith("write_bytes:"))
                    self._io[int(pid)] = max(self._io.get(int(pid), 0), int(written.split()[1]))
                except (OSError, StopIteration, ValueError):
                    continue
            self.peak_rss = max(self.peak_rss, total)


def _owned_files(uids: set[int]) -> dict[int, tuple[int, int]]:
    """Files and bytes on the host's root file system owned by each of `uids`."""
    found: dict[int, tuple[int, int]] = {}
    for folder, dirs, files in os.walk("/", topdown=True):
        dirs[:] = [d for d in dirs if not os.path.ismount(os.path.join(folder, d))]
        for name in dirs + files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if info.st_uid in uids:
                n, size = found.get(info.st_uid, (0, 0))
                found[info.st_uid] = (n + 1, size + info.st_size)
    return found


def bombs_part() -> None:
    from proctor.sandbox import Job, isolation_report, process, run_job

    print(isolation_report().summary())
    print(f"{'bomb':<24} {'outcome':<13} {'peak RSS (host)':>15} {'peak (cgroup)':>13}"
          f" {'disk writes':>11}  detail")  # fmt: skip
    uids: dict[str, int] = {}
    folders = os.path.join(tempfile.gettempdir(), f"proctor-sandbox-{os.getpid()}-*")
    for number, (name, source) in enumerate(BOMBS.items()):
        uid = 4_200_000 + number
        uids[name] = uid
        process._sandbox_uid = lambda uid=uid: uid  # type: ignore[misc]
        with HostWatch(uid) as watch:
            result = run_job(Job(source))
        cgroup = (
            "-"
            if result.peak_memory_bytes is None
            else f"{result.peak_memory_bytes / 2**20:.0f} MiB"
        )
        print(
            f"{name:<24} {result.status:<13} {watch.peak_rss / 2**20:>11.0f} MiB {cgroup:>13}"
            f" {watch.disk_bytes:>11}  {result.detail[:60]}"
        )
    owned = _owned_files(set(uids.values()))
    counts = [f"{n} {owned.get(u, (0, 0))[0]} ({owned.get(u, (0, 0))[1]} bytes)"
              for n, u in uids.items()]  # fmt: skip
    print("after all bombs: files owned by a bomb's uid anywhere on the host's root file system: "
          + ", ".join(counts) + f"; proctor-sandbox folders left: {len(glob.glob(folders))}")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--problems", type=int, default=None, help="first N HumanEval problems")
    p.add_argument("--skip-bombs", action="store_true")
    p.add_argument("--against", metavar="REF", help="compare with REF's harness, interleaved")
    p.add_argument("--rounds", type=int, default=1, help="with --against: passes over the set")
    a = p.parse_args()
    if a.against:
        interleaved_part(a.problems, a.against, a.rounds)
    else:
        humaneval_part(a.problems)
    if not a.skip_bombs and os.geteuid() == 0:
        bombs_part()


if __name__ == "__main__":
    main()
