"""Set-up time of a fresh clone with empty caches: `git clone` this repository into a temporary
folder, then time `bash scripts/setup.sh` there with a temporary HOME, PIP_CACHE_DIR and
XDG_CACHE_HOME (so neither pip's cache nor the cached llama-cpp-python wheel helps), as a fresh
CI runner or a new user's machine runs it. Downloads from PyPI are part of the time.

    python bench/bench_setup.py [--repo PATH] [--runs 1] [--keep]

Writes its section into bench/RESULTS.md (between the `bench_setup` markers; bench/run_all.py
keeps it when it rewrites that file) and the figures into bench/RESULTS_setup.json. The target
(issue 31): under 3 minutes. One run costs a full install (CPU and ~500 MB of downloads): run it
once or twice, not in a loop."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET_S = 180.0
BEGIN, END = "<!-- bench_setup: begin -->", "<!-- bench_setup: end -->"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _runtime(venv_python: Path) -> str:
    probe = (
        "import importlib.metadata as m, importlib.util as u\n"
        "for d, mod in (('xllamacpp', 'xllamacpp'), ('llama-cpp-python', 'llama_cpp')):\n"
        "    if u.find_spec(mod):\n"
        "        print(d, m.version(d)); break\n"
        "else:\n"
        "    print('none')\n"
    )
    if not venv_python.exists():
        return "none (no .venv)"
    out = subprocess.run([str(venv_python), "-c", probe], capture_output=True, text=True)
    return out.stdout.strip() or out.stderr.strip()[-200:]


def one_run(repo: Path, keep: bool) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="proctor-bench-setup-"))
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(
        HOME=str(tmp / "home"),
        PIP_CACHE_DIR=str(tmp / "pip-cache"),
        XDG_CACHE_HOME=str(tmp / "xdg-cache"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.pop("PROCTOR_WHEEL_CACHE", None)
    (tmp / "home").mkdir()
    load_before = _load()
    start = time.perf_counter()
    done = subprocess.run(
        ["bash", "scripts/setup.sh"], cwd=clone, env=env, capture_output=True, text=True
    )
    took = time.perf_counter() - start
    result = {
        "commit": commit,
        "rc": done.returncode,
        "seconds": round(took, 1),
        "runtime": _runtime(clone / ".venv" / "bin" / "python"),
        "load_before": load_before,
        "load_after": _load(),
        "stderr_tail": done.stderr[-1500:],
    }
    if keep:
        result["folder"] = str(tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


def section(res: dict[str, Any]) -> str:
    lines = [
        BEGIN,
        "## Set-up: a fresh clone's `bash scripts/setup.sh` with empty caches",
        "",
        f"- Date: {res['date']} (UTC); machine: {res['machine']}. Reproduce: "
        "`python bench/bench_setup.py` (a temporary HOME, PIP_CACHE_DIR and XDG_CACHE_HOME; "
        "PyPI downloads included).",
        "",
        "| run | commit | exit | seconds | target < 180 s | embedded runtime | load before → after |",
        "|---|---|---:|---:|---|---|---|",
    ]
    for i, r in enumerate(res["runs"], 1):
        met = "met" if r["rc"] == 0 and r["seconds"] < TARGET_S else "**missed**"
        lines.append(
            f"| {i} | `{r['commit']}` | {r['rc']} | {r['seconds']:.0f} | {met} | {r['runtime']} "
            f"| {r['load_before']} → {r['load_after']} |"
        )
    lines += ["", *[f"- {note}" for note in res.get("notes", [])], END, ""]
    return "\n".join(lines)


def write_results(res: dict[str, Any]) -> None:
    (HERE / "RESULTS_setup.json").write_text(json.dumps(res, indent=2))
    text = section(res)
    results = HERE / "RESULTS.md"
    current = results.read_text() if results.exists() else "# proctor benchmarks\n"
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        current = head + text.rstrip("\n") + tail
    else:
        current = current.rstrip("\n") + "\n\n" + text
    results.write_text(current)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=HERE.parent)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the temporary clone")
    ap.add_argument("--note", action="append", default=[], help="a line for RESULTS.md")
    a = ap.parse_args()
    runs = [one_run(a.repo, a.keep) for _ in range(a.runs)]
    cpu = os.cpu_count()
    res = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M+00:00"),
        "machine": f"{cpu} cores, Python {platform.python_version()}, {platform.platform()}",
        "runs": runs,
        "notes": a.note,
    }
    write_results(res)
    for r in runs:
        print(f"rc={r['rc']} {r['seconds']:.0f} s runtime={r['runtime']}", file=sys.stderr)
        if r["rc"]:
            print(r["stderr_tail"], file=sys.stderr)


if __name__ == "__main__":
    main()
