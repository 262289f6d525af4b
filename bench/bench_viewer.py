"""(h) `proctor view` on big results: a 100,000-answer run (2 models × 50,000 items) and a
50-model run (50 × 2,000) in one folder. For each page: the server's reply time, the first
contentful paint in headless Chromium, the page's size; the viewer's peak RSS. "Before" is the
viewer of the commit before issue 17 (its run page was the whole report), on the same folder,
in the same run.

    .venv/bin/python bench/bench_viewer.py [--before f1a1adc]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

# imported after the sys.path lines above, which let them be found when this runs as a script
from bench_startup import BEFORE, export  # noqa: E402
from common import PROCTOR, child_env, headless_chromium  # noqa: E402

from support.big_store import make_big_store  # noqa: E402

BIG, WIDE = "20261201-000001-arithmetic-big100k", "20261201-000002-arithmetic-wide50"
TARGETS = {"first_paint_s": 1.0, "peak_mb": 300}
PAINT = """
const nav = performance.getEntriesByType('navigation')[0];
const fcp = performance.getEntriesByName('first-contentful-paint')[0];
return [nav.responseStart, fcp ? fcp.startTime : null, nav.loadEventEnd];
"""


def peak_mb(pid: int) -> float:
    found = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else float("nan")


def pages() -> dict[str, str]:
    return {
        "runs list": "/",
        "run page, 100k": f"/runs/{BIG}",
        "answers, filtered, page 600": f"/runs/{BIG}/answers?outcome=wrong&q=Final&page=600",
        "item, 50 models side by side": f"/runs/{WIDE}/items/i001234",
        "model across runs": "/models/big%2Fm01",
        "progress, 100k": f"/runs/{BIG}/progress",
    }


def measure(root: Path, env: dict[str, str], names: list[str]) -> dict[str, Any]:
    proc = subprocess.Popen([*PROCTOR, "view", "-r", str(root), "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    out: dict[str, Any] = {"pages": {}}
    driver = None
    try:
        assert proc.stdout is not None
        found = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline())
        if not found:
            raise RuntimeError("the viewer did not start")
        base = found.group(0)
        try:
            driver = headless_chromium()
            driver.set_page_load_timeout(600)
        except RuntimeError as e:
            out["browser"] = f"skipped: {e}"
        for name in names:
            path = pages()[name]
            row: dict[str, Any] = {}
            if driver is not None:  # first, cold: the old viewer caches a page it has built
                driver.get(base + path)
                response, paint, loaded = driver.execute_script(PAINT)
                waited = time.perf_counter()
                while paint is None and time.perf_counter() - waited < 10:  # painted after load
                    time.sleep(0.05)
                    response, paint, loaded = driver.execute_script(PAINT)
                row.update(first_byte_s=response / 1000, load_s=loaded / 1000)
                if paint is not None:
                    row["first_paint_s"] = paint / 1000
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(base + path, timeout=600) as reply:
                    row.update(bytes=len(reply.read()), status=reply.status)
            except urllib.error.HTTPError as e:
                row.update(bytes=len(e.read()), status=e.code)
            row.setdefault("first_byte_s", time.perf_counter() - start)
            out["pages"][name] = row
        out["peak_mb"] = peak_mb(proc.pid)
    finally:
        if driver is not None:
            driver.quit()
        proc.terminate()
        proc.wait(10)
    return out


MAKE_FOLDER = f"""
import sys
sys.path.insert(0, {str(HERE.parent / "tests")!r})
from pathlib import Path
from support.big_store import make_big_store
root = Path(sys.argv[1])
make_big_store(root, 50_000, ("big/m01", "big/m02"), {BIG!r})
make_big_store(root, 2_000, tuple(f"big/m{{i:02d}}" for i in range(1, 51)), {WIDE!r})
"""


def run(before: str = BEFORE) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-h-"))
    root = work / "results"
    started = time.perf_counter()
    make_big_store(root, 50_000, ("big/m01", "big/m02"), BIG)
    make_big_store(root, 2_000, tuple(f"big/m{i:02d}" for i in range(1, 51)), WIDE)
    made = time.perf_counter() - started
    after = measure(root, child_env(), list(pages()))
    # The old viewer: only the pages it had (the runs list and the run page), on the same
    # answers written by its own code (it refuses a store of a newer schema).
    old_env = child_env(PYTHONPATH=str(export(before)))
    subprocess.run([sys.executable, "-c", MAKE_FOLDER, str(work / "before")], env=old_env,
                   check=True, capture_output=True)  # fmt: skip
    old = measure(work / "before", old_env, ["runs list", "run page, 100k"])
    shutil.rmtree(work, ignore_errors=True)  # two 100,000-answer folders: ~200 MB
    paints = [p.get("first_paint_s", 0.0) if p.get("status", 200) == 200 else float("inf")
              for p in after["pages"].values()]  # fmt: skip
    return {
        "before": before,
        "store_s": made,
        "after": after,
        "old": old,
        "targets": TARGETS,
        "paint_met": bool(paints) and max(paints) < TARGETS["first_paint_s"],
        "memory_met": after["peak_mb"] < TARGETS["peak_mb"],
    }


def render(h: dict[str, Any]) -> list[str]:
    def ok(flag: bool) -> str:
        return "met" if flag else "**missed**"

    def cells(row: dict[str, Any] | None) -> str:
        if row is None:
            return "– | – | – |"
        if row.get("status", 200) != 200:
            return f"HTTP {row['status']} | – | – |"
        paint = f"{row['first_paint_s']:.2f}" if "first_paint_s" in row else "–"
        return f"{row['first_byte_s']:.2f} | {paint} | {row['bytes'] / 2**10:,.0f} |"

    lines = [
        "## (h) `proctor view` on big results: 2 models × 50,000 items and 50 models × 2,000, "
        "one folder",
        "",
        f"- the folder generated through `RunStore` in {h['store_s']:.0f} s (graded; "
        "tests/support/big_store.py).",
        "- first byte and first contentful paint as headless Chromium times them from the start "
        "of the navigation (cold: each page's first request).",
        "",
        "| page | after: first byte s | first paint s | KiB | before: first byte s | first paint s "
        "| KiB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in h["after"]["pages"].items():
        lines.append(f"| {name} | {cells(row)} {cells(h['old']['pages'].get(name))}")
    worst = max((r.get("first_paint_s", 0.0) for r in h["after"]["pages"].values()), default=0.0)
    lines += [
        "",
        f"- slowest first paint after: {worst:.2f} s (target < {h['targets']['first_paint_s']} s: "
        f"{ok(h['paint_met'])}); the viewer's peak RSS over every page: "
        f"{h['after']['peak_mb']:.0f} MB (target < {h['targets']['peak_mb']} MB: "
        f"{ok(h['memory_met'])}); before (commit `{h['before']}`, its two pages only): "
        f"{h['old']['peak_mb']:.0f} MB.",
        "- after, a page reads what it shows in SQL (`store/browse.py`): one page of answers, "
        "one item's answers, counts per model; the run page of a run over 20,000 answers is its "
        "answers a page at a time (the whole report stays in the run folder's report.html).",
        "",
    ]
    if "browser" in h["after"]:
        lines.insert(2, f"- browser {h['after']['browser']}")
    return lines


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=BEFORE)
    print("\n".join(render(run(ap.parse_args().before))))
