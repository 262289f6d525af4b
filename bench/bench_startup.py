"""(g) How soon proctor gets out of the way: `proctor --help`, and the time from starting
`proctor run` to its first request reaching the server, each against a baseline measured in
the same run (the bare interpreter; a standard-library client sending the same request).

    .venv/bin/python bench/bench_startup.py [--reps 7] [--before f1a1adc]

"Before" is the source tree of a git commit (default: the last one before issue 17's lazy
imports), exported to a temporary folder and run with the same interpreter and packages
(PYTHONPATH puts it ahead of the checkout), interleaved with the checkout ("after").

Both source trees are compiled to bytecode first (`compileall`), as an installed package is: where
PYTHONDONTWRITEBYTECODE is set (as on the shared box) no run writes its `.pyc` files, and every
start would compile proctor's sources again (~0.17 s of the first request's time, none of it
the harness's); elsewhere the first repetition alone would pay it.

The server is a tiny loopback listener in this process that notes when each connection's first
request arrives and answers it as a chat completion. What still costs the time before the first
request is profiled with `python -X importtime` (the standard library's import profiler): the
slowest imports, cumulative, go into the result."""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PROCTOR, PY, REPO, child_env

BEFORE = "f1a1adc"

REPLY = json.dumps(
    {
        "id": "bench",
        "object": "chat.completion",
        "model": "stub",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Final answer: 0"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()

STDLIB_CLIENT = """
import json, sys, urllib.request
body = json.dumps({"model": "stub", "messages": [{"role": "user", "content": "1 + 1"}],
                   "max_tokens": 256, "temperature": 0}).encode()
req = urllib.request.Request(sys.argv[1] + "/chat/completions", data=body,
                             headers={"Content-Type": "application/json"})
urllib.request.urlopen(req).read()
"""
TARGETS = {"help": 0.15, "first_request": 0.3}
LIBRARIES = "import typer._adapters, rich.progress, aiohttp, sqlite3"
"""What a run must import before its first request that is not proctor's: typer with the pydantic
adapters it converts every option with, rich's progress display, the aiohttp client (its import
loads the system's certificates twice), the rate limiter and SQLite: the floor of the first
request's time, measured in the same run."""


class FirstRequest(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.first: float | None = None
        self.lock = threading.Lock()
        self.kill: subprocess.Popen[str] | None = None
        """A process to stop at its first request (to profile what it did before it)."""
        self.stop_with = signal.SIGKILL

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reset(self) -> None:
        with self.lock:
            self.first = None


class _Handler(BaseHTTPRequestHandler):
    server: FirstRequest

    def do_POST(self) -> None:
        now = time.perf_counter()
        with self.server.lock:
            if self.server.first is None:
                self.server.first = now
            if self.server.kill is not None:
                self.server.kill.send_signal(self.server.stop_with)
                self.server.kill = None
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        pass


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=300)
    return time.perf_counter() - start


def to_first_request(server: FirstRequest, cmd: list[str], env: dict[str, str]) -> float:
    server.reset()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, timeout=300)
    if done.returncode != 0 or server.first is None:
        tail = (done.stdout + done.stderr).decode(errors="replace")[-800:]
        raise RuntimeError(f"{cmd[:4]} exited {done.returncode} (first request {server.first}): {tail}")
    return server.first - start


def import_profile(
    cmd: list[str], env: dict[str, str], server: FirstRequest | None = None, top: int = 12
) -> list[dict[str, Any]]:
    """The slowest imports of `cmd` (run with -X importtime), cumulative milliseconds; with
    `server`, only those done before its first request (the server kills it then)."""
    proc = subprocess.Popen([PY, "-X", "importtime", *cmd[1:]], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    if server is not None:
        server.reset()
        server.kill = proc
    _, err = proc.communicate(timeout=300)
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, self_us, cum_us, name = line.replace("import time:", "|").split("|")
        rows.append({"module": name.strip(), "self_ms": int(self_us) / 1000,
                     "cumulative_ms": int(cum_us) / 1000,
                     "depth": (len(name) - len(name.lstrip()) - 1) // 2})  # fmt: skip
    rows.sort(key=lambda r: -r["cumulative_ms"])
    return rows[:top]


def call_profile(cmd: list[str], env: dict[str, str], server: FirstRequest,
                 work: Path, top: int = 15) -> list[dict[str, Any]]:  # fmt: skip
    """cProfile of `cmd` up to its first request: the server interrupts it (SIGINT, which the
    CLI turns into an orderly exit, so the profile is written); cumulative seconds per call."""
    out = work / "first-request.prof"
    server.reset()
    server.stop_with = signal.SIGINT
    proc = subprocess.Popen([PY, "-m", "cProfile", "-o", str(out), *cmd[1:]], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    server.kill = proc
    proc.wait(300)
    server.stop_with = signal.SIGKILL
    if not out.exists():
        return []
    stats = pstats.Stats(str(out), stream=io.StringIO())
    rows = []
    for (file, line, name), (_, calls, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "proctor" in file or name in ("<module>",):
            where = file.split("/src/")[-1] if "/src/" in file else file.split("/")[-1]
            rows.append({"function": f"{where}:{line} {name}", "calls": calls,
                         "cumulative_s": cumulative})  # fmt: skip
    rows.sort(key=lambda r: -r["cumulative_s"])
    return [r for r in rows if "<module>" not in r["function"]][:top]


def pyinstrument_profile(cmd: list[str], env: dict[str, str], server: FirstRequest,
                         work: Path) -> list[str]:  # fmt: skip
    """pyinstrument's call tree of `cmd` up to its first request (interrupted as in
    `call_profile`); [] when pyinstrument is not installed (`pip install -e '.[bench]'`)."""
    if importlib.util.find_spec("pyinstrument") is None:
        return []
    out = work / "first-request.txt"
    server.reset()
    server.stop_with = signal.SIGINT
    proc = subprocess.Popen([PY, "-m", "pyinstrument", "-r", "text", "--no-color", "-o", str(out),
                             "-m", "proctor", *cmd[3:]], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    server.kill = proc
    proc.wait(300)
    server.stop_with = signal.SIGKILL
    return out.read_text().splitlines()[:60] if out.exists() else []


def compile_sources(*trees: Path) -> None:
    """Bytecode for every module of `trees`, written now, where the measured processes (their
    environment: `child_env`) look for it, so that no repetition pays for compiling."""
    subprocess.run([PY, "-m", "compileall", "-q", *map(str, trees)], check=True,
                   capture_output=True, timeout=600, env=child_env())  # fmt: skip


def export(ref: str) -> Path:
    """The `src` folder of commit `ref`, in a temporary folder."""
    where = Path(tempfile.mkdtemp(prefix="proctor-bench-before-"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"], capture_output=True,
                             check=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where / "src"


def run(reps: int = 7, before: str = BEFORE) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-g-"))
    client = work / "client.py"
    client.write_text(STDLIB_CLIENT)
    before_src = export(before)
    compile_sources(REPO / "src", before_src)
    envs = {"after": child_env(), "before": child_env(PYTHONPATH=str(before_src))}
    server = FirstRequest()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    times: dict[str, list[float]] = {k: [] for k in (
        "python", "stdlib", "libraries", "help", "help_before", "proctor", "proctor_before")}  # fmt: skip

    def run_cmd(name: str) -> list[str]:
        return [*PROCTOR, "run", "arithmetic", "--n", "1", "-m",
                f"openai-compat/stub@{server.url}", "-r", str(work / name)]  # fmt: skip

    try:
        for rep in range(reps):  # interleaved, so a burst of load hits all alike
            times["python"].append(wall([PY, "-c", "pass"], envs["after"]))
            times["libraries"].append(wall([PY, "-c", LIBRARIES], envs["after"]))
            times["stdlib"].append(to_first_request(server, [PY, str(client), server.url], envs["after"]))
            for side, suffix in (("after", ""), ("before", "_before")):
                times["help" + suffix].append(wall([*PROCTOR, "--help"], envs[side]))
                times["proctor" + suffix].append(
                    to_first_request(server, run_cmd(f"{side}{rep}"), envs[side])
                )
        profile = import_profile(run_cmd("profile"), envs["after"], server)
        help_profile = import_profile([*PROCTOR, "--help"], envs["after"])
        calls = call_profile(run_cmd("cprofile"), envs["after"], server, work)
        tree = pyinstrument_profile(run_cmd("pyinstrument"), envs["after"], server, work)
    finally:
        server.shutdown()
        server.server_close()
        for folder in (work, before_src.parent):  # the runs' stores and the exported tree
            shutil.rmtree(folder, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "reps": reps,
        "before": before,
        "bytecode_compiled": True,
        "dont_write_bytecode_env": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
        "runs": times,
        "median": med,
        "help_s": med["help"],
        "help_over_python_s": med["help"] - med["python"],
        "first_request_s": med["proctor"],
        "first_request_over_stdlib_s": med["proctor"] - med["stdlib"],
        "first_request_over_libraries_s": med["proctor"] - med["libraries"],
        "targets": TARGETS,
        "help_met": med["help"] < TARGETS["help"],
        "first_request_met": med["proctor"] < TARGETS["first_request"],
        "run_import_profile": profile,
        "help_import_profile": help_profile,
        "run_call_profile": calls,
        "run_pyinstrument": tree,
    }


def render(g: dict[str, Any]) -> list[str]:
    med = g["median"]

    def verdict(met: bool) -> str:
        return "met" if met else "**missed**"

    lines = [
        f"## (g) Start-up: `proctor --help` and the first request of a run ({g['reps']} repetitions, medians)",
        "",
        "| what | before s | after s | baseline in the same run | baseline s |",
        "|---|---:|---:|---|---:|",
        f"| `proctor --help` | {med['help_before']:.3f} | {med['help']:.3f} | `python -c pass` "
        f"| {med['python']:.3f} |",
        f"| `proctor run` start → first request at the server | {med['proctor_before']:.3f} "
        f"| {med['proctor']:.3f} | a standard-library client (urllib) start → its request "
        f"| {med['stdlib']:.3f} |",
        "",
        f"- before = commit `{g['before']}` (the source as it was before issue 17's lazy imports), "
        "run interleaved with the checkout by the same interpreter; both compiled to bytecode "
        "first (`compileall`), as an installed package is"
        + (" (PYTHONDONTWRITEBYTECODE is set here: without that step every start would compile "
           "proctor's sources again)." if g.get("dont_write_bytecode_env") else "."),
        "",
        f"- `--help`: {med['help']:.3f} s (target < {g['targets']['help']} s: {verdict(g['help_met'])}); "
        f"{g['help_over_python_s']:.3f} s above the bare interpreter.",
        f"- first request: {med['proctor']:.3f} s after start (target < {g['targets']['first_request']} s: "
        f"{verdict(g['first_request_met'])}); {g['first_request_over_stdlib_s']:.3f} s more than the stdlib client.",
        f"- importing only the libraries a run needs before its first request (`python -c \"{LIBRARIES}\"`) "
        f"takes {med['libraries']:.3f} s in the same run: proctor's own start-up (its modules, the plan, "
        f"the store, the first call) is the remaining {g['first_request_over_libraries_s']:.3f} s.",
        "- The package roots of `report`, `report.html`, `extract` and `stats` import a submodule "
        "only when one of its names is used (`proctor/_util/lazy_exports.py`); `TASKS` imports a task's module "
        "when that task is asked for; `cli/app.py` no longer imports asyncio nor `cli/audit.py` the whole "
        "report room at start.",
        "- `--help` is click's plain help (`cli/plain_help.py`: typer's rich help imported rich's markdown "
        "and traceback renderers, markdown-it and pygments), and the CLI modules import rich, the "
        "console and the rooms inside the commands; a run imports aiohttp when its first request is "
        "sent, httpx only for a test's MockTransport or an https certificate store, and the batch "
        "machinery only with `--batch`.",
        "",
        "What a run still imports before its first request (`python -X importtime`, the process killed by the "
        "server at that request; cumulative ms, slowest first; nesting shown by dots):",
        "",
        "| module | cumulative ms | self ms |",
        "|---|---:|---:|",
    ]
    lines += [f"| {'·' * r['depth']}{r['module']} | {r['cumulative_ms']:.1f} | {r['self_ms']:.1f} |"
              for r in g["run_import_profile"]]  # fmt: skip
    lines += ["", "`proctor --help` (same profile):", "", "| module | cumulative ms | self ms |", "|---|---:|---:|"]
    lines += [f"| {'·' * r['depth']}{r['module']} | {r['cumulative_ms']:.1f} | {r['self_ms']:.1f} |"
              for r in g["help_import_profile"]]  # fmt: skip
    if g.get("run_call_profile"):
        lines += ["", "Where a run spends its time before the first request (cProfile, the process "
                  "interrupted at that request; proctor's own functions, cumulative s, imports "
                  "included):", "", "| function | calls | cumulative s |", "|---|---:|---:|"]  # fmt: skip
        lines += [f"| `{r['function']}` | {r['calls']} | {r['cumulative_s']:.3f} |"
                  for r in g["run_call_profile"]]  # fmt: skip
    if g.get("run_pyinstrument"):
        lines += ["", "The same, as pyinstrument's call tree (first 60 lines):", "", "```",
                  *g["run_pyinstrument"], "```"]  # fmt: skip
    return lines


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--before", default=BEFORE)
    args = ap.parse_args()
    result = run(args.reps, args.before)
    print("\n".join(render(result)))
