"""(f) A big run stays usable: M models × N items against the zero-latency stub, through the CLI
exactly as a user types it. Measures the whole `proctor run` (ask + grade + report), then
`proctor report` alone on the stored run, each in its own process with its peak RSS, and keeps
the first lines of the terminal report (80 columns) to show what a user reads.

Run: `.venv/bin/python bench/bench_big_run.py [--models 50] [--n 2000] [--concurrency 8]`.

`proctor report` alone, again and again on a store made once (the run takes a minute), against
another checkout's code in the same run (alternating, so both see the same load):
`.venv/bin/python bench/bench_big_run.py --keep DIR` once, then
`.venv/bin/python bench/bench_big_run.py --reuse DIR --reps 5 --baseline-src OTHER/src`
(e.g. `git archive main src | tar -x -C /tmp/base` makes OTHER=/tmp/base)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from common import PROCTOR, child_env, headless_chromium, stub_process


def _measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, stdout) of one child process; the peak from wait4's rusage of
    exactly that child (the bench process itself stays small, so a fork's inherited RSS is
    no concern)."""
    took, usage, out = _child(cmd, env)
    return took, usage.ru_maxrss / 1024, out


def _child(cmd: list[str], env: dict[str, str]) -> tuple[float, Any, str]:
    """(wall s, wait4's rusage, stdout) of one child process; raises if it fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[:4]} exited {proc.returncode}: {err.read().decode()[-1500:]}")
        return took, usage, out.read().decode(errors="replace")


def open_in_browser(page: Path) -> dict[str, object]:
    """Milliseconds until headless Chromium has loaded `page` (load event) and until its sample
    browser has drawn its first rows; skipped, saying why, without Debian's chromium+driver."""
    try:
        driver = headless_chromium()
    except RuntimeError as e:
        return {"skipped": str(e)}
    try:
        start = time.perf_counter()
        driver.get(page.as_uri())  # returns once the page has loaded
        loaded = time.perf_counter() - start
        nav = driver.execute_script(
            "const t = performance.getEntriesByType('navigation')[0];"
            "return [t.domContentLoadedEventEnd, t.loadEventEnd];"
        )
        rows = driver.execute_script("return document.querySelectorAll('tbody tr').length;")
        return {"get_ms": loaded * 1000, "dom_content_loaded_ms": nav[0], "load_ms": nav[1],
                "table_rows_drawn": rows}  # fmt: skip
    finally:
        driver.quit()


def report_runs(
    work: Path, reps: int, baseline_src: Path | None = None
) -> dict[str, object]:
    """`proctor report` of the one run in `work`, `reps` times, each in a fresh process: wall s,
    CPU s (user + system: what a shared machine's load inflates least) and peak RSS MB, medians;
    with `baseline_src` the same alternately with that checkout's `src` first on PYTHONPATH, and
    the ratios (this code / baseline)."""
    (run_dir,) = (work / "runs").iterdir()
    cmd = [*PROCTOR, "report", run_dir.name, "-r", str(work)]
    kinds = {"this": child_env(COLUMNS="80")}
    if baseline_src is not None:
        kinds["baseline"] = child_env(COLUMNS="80", PYTHONPATH=str(baseline_src.resolve()))
    got: dict[str, list[tuple[float, float, float]]] = {k: [] for k in kinds}
    files: dict[str, dict[str, int]] = {}
    for _ in range(reps):
        for kind, env in kinds.items():
            took, usage, _ = _child(cmd, env)
            got[kind].append((took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024))
            files[kind] = {p.name: p.stat().st_size for p in sorted(run_dir.iterdir())}
    out: dict[str, object] = {"reps": reps, "load_after": os.getloadavg()}
    medians: dict[str, tuple[float, float, float]] = {}
    for kind, runs in got.items():
        medians[kind] = (
            statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs),
            statistics.median(r[2] for r in runs),
        )
        out[kind] = {
            "report_s_median": medians[kind][0],
            "report_cpu_s_median": medians[kind][1],
            "report_peak_mb_median": medians[kind][2],
            "report_s_runs": [round(r[0], 2) for r in runs],
            "report_cpu_s_runs": [round(r[1], 2) for r in runs],
            "files": files[kind],
        }
    if baseline_src is not None:
        this, base = medians["this"], medians["baseline"]
        out["ratio_s"] = this[0] / base[0]
        out["ratio_cpu_s"] = this[1] / base[1]
        out["ratio_peak_mb"] = this[2] / base[2]
    return out


def big_run(
    models: int = 50, n: int = 2000, conc: int = 8, keep: Path | None = None
) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-f-")) if keep is None else keep
    work.mkdir(parents=True, exist_ok=True)
    env = child_env(COLUMNS="80")
    with stub_process() as url:
        names = [f"openai-compat/m{i:02d}@{url}" for i in range(1, models + 1)]
        cmd = [*PROCTOR, "run", "arithmetic", "--n", str(n), "--concurrency", str(conc),
               "-r", str(work)]  # fmt: skip
        for m in names:
            cmd += ["-m", m]
        run_s, run_mb, run_out = _measured(cmd, env)
    (run_dir,) = (work / "runs").iterdir()
    with sqlite3.connect(work / "proctor.db") as db:  # first to last answer stored
        first, last = db.execute("SELECT MIN(created_at), MAX(created_at) FROM records").fetchone()
    asking_s = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    report_s, report_mb, _ = _measured([*PROCTOR, "report", run_dir.name, "-r", str(work)], env)
    sizes = {p.name: p.stat().st_size for p in sorted(run_dir.iterdir())}
    browser = open_in_browser(run_dir / "report.html")
    report_lines = [line for line in run_out.splitlines() if "━" not in line]
    if keep is None:  # 100,000 answers and their reports: ~180 MB (kept: for --reuse)
        shutil.rmtree(work, ignore_errors=True)
    return {"models": models, "n": n, "concurrency": conc, "calls": models * n,
            "run_s": run_s, "asking_s": asking_s, "run_peak_mb": run_mb, "report_s": report_s,
            "report_peak_mb": report_mb, "files": sizes, "browser": browser,
            "head": report_lines[:40]}  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=50)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--keep", type=Path, help="make the run's store in this (empty) folder")
    ap.add_argument("--reuse", type=Path, help="only `proctor report`, on the store made here")
    ap.add_argument("--reps", type=int, default=3, help="with --reuse: reports per checkout")
    ap.add_argument("--baseline-src", type=Path, help="with --reuse: another checkout's src")
    a = ap.parse_args()
    if a.reuse is not None:
        result = report_runs(a.reuse, a.reps, a.baseline_src)
    else:
        result = big_run(a.models, a.n, a.concurrency, a.keep)
    print(json.dumps(result, indent=2))
