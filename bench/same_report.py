"""Whether this checkout writes the same report files as another version of proctor, byte for
byte, on the same stored runs: a check for changes meant to alter no number, verdict or file
(how the statistics are made, when a report streams).

    .venv/bin/python bench/same_report.py --base /path/to/other/checkout/src [--keep DIR]

Runs of several kinds are made through the CLI against loopback scripted stubs (the tests'
`support.stub.scripted`): arithmetic with 3 replies per item (repeats, the error taxonomy),
arithmetic with one reply and a calculator twin's name, gsm8k (lm-eval metrics), a suite with
its [gate], structured (stated confidences: calibration). Each run's report (`proctor report`)
is then written by this checkout's src and by `--base`, each both holding the answers and
streaming them (`rereport.STREAM_ABOVE` set to 0 or to a billion), and results.json,
samples.csv, summary.md, report.html and task_metrics.json are compared. Prints one line per
run and way; exit status 0 only when every file of every run is identical.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import PY, REPO, child_env

sys.path.insert(0, str(REPO / "tests"))

from proctor.tasks.registry import get_task, load_for_run
from support.stub.report_scripts import numbers, structured
from support.stub.scripted import Script, Scripted, run_scripted

FILES = ("results.json", "samples.csv", "summary.md", "report.html", "task_metrics.json")
EXAMPLES = REPO / "examples"

REPORT = """
import sys
import proctor.runs.rereport as rereport
rereport.STREAM_ABOVE = int(sys.argv[1])
from proctor.cli.app import main
sys.argv = ["proctor", "report", *sys.argv[2:]]
main()
"""


def _arithmetic(offset: int) -> Script:
    """The item's answer, or one of the mistakes the error taxonomy names, or none; varied per
    call so that repeated replies to one item differ."""
    samples = load_for_run(get_task("arithmetic")).samples
    calls = itertools.count()

    def answer(messages: list[dict[str, Any]]) -> Scripted:
        asked = str(messages[-1]["content"])
        sample = next((s for s in samples if s.input in asked), None)
        pick = (zlib.crc32(asked.encode()) + offset + next(calls)) % 6
        if sample is None or pick == 5:
            return Scripted("I cannot say.")
        t = sample.target
        said = (t, t, "-" + t.lstrip("-"), t + "0", t[::-1])[pick]
        return Scripted(f"Let me work it out.\nFinal answer: {said}")

    return answer


KINDS: dict[str, tuple[list[str], Callable[[int], Script]]] = {
    "arithmetic, 3 replies an item": (
        ["arithmetic", "--limit", "40", "--samples", "3", "--temperature", "0.7"], _arithmetic
    ),
    "arithmetic, a calculator twin": (["arithmetic", "--limit", "40"], _arithmetic),
    "gsm8k": (["gsm8k", "--limit", "12"], numbers),
    "suite with a [gate]": (["--suite", str(EXAMPLES / "support-desk.csv")], numbers),
    "structured: confidences": (["structured", "--limit", "14"], structured),
}


def _cli(src: Path, *args: str, stream_above: int = 10**9) -> int:
    env = child_env(PYTHONPATH=str(src), COLUMNS="250")
    done = subprocess.run([PY, "-c", REPORT, str(stream_above), *args], env=env,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(f"proctor {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done.returncode


def _run(src: Path, results: Path, name: str) -> Path:
    """Ask two scripted models for the run `name`; its folder."""
    args, script = KINDS[name]
    with run_scripted(script(0)) as a, run_scripted(script(3)) as b:
        models = [a.model, b.model]
        if "calculator" in name:  # offered the calculator: the report pairs it with its bare model
            models = [a.model, a.model + "+calculator", b.model]
        run = [PY, "-m", "proctor", "run", *args, "-r", str(results), "--max-attempts", "1"]
        for model in models:
            run += ["-m", model]
        subprocess.run(run, env=child_env(PYTHONPATH=str(REPO / "src")), capture_output=True,
                       check=False)  # fmt: skip
    return results


def _report(src: Path, results: Path, run_id: str, run_dir: Path, stream: bool) -> dict[str, bytes]:
    for name in FILES:
        (run_dir / name).unlink(missing_ok=True)
    _cli(src, run_id, "-r", str(results), stream_above=0 if stream else 10**9)
    return {n: (run_dir / n).read_bytes() for n in FILES if (run_dir / n).exists()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other version's src/")
    parser.add_argument("--keep", type=Path, help="make the runs here and keep them")
    parser.add_argument("--store", type=Path, action="append", default=[],
                        help="instead: compare the reports of this results folder's one run "
                             "(e.g. bench_scale.py (e)'s); repeatable")  # fmt: skip
    given = parser.parse_args()
    work = given.keep or Path(tempfile.mkdtemp(prefix="proctor-same-report-"))
    if given.store:
        folders = [(str(f), f) for f in given.store]
    else:
        folders = [(name, _run(REPO / "src", work / f"r{i}", name)) for i, name in enumerate(KINDS)]
    different = sum(_compare(name, results, given.base) for name, results in folders)
    if given.keep is None and not given.store:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if different else 0


def _compare(name: str, results: Path, base: Path) -> int:
    """How many of the ways (base streamed, this held, this streamed) differ from base held."""
    from proctor.store import RunStore

    with RunStore.open(results) as store:
        (run_id,) = [r.run_id for r in store.list_runs()]
        run_dir = store.run_dir(run_id)
        answers = sum(store.count_records(run_id).values())
    reference = _report(base, results, run_id, run_dir, stream=False)
    different = 0
    for who, src in (("base", base), ("this", REPO / "src")):
        for stream in (False, True):
            if (who, stream) == ("base", False):
                continue
            got = _report(src, results, run_id, run_dir, stream)
            changed = [n for n in FILES if got.get(n) != reference.get(n)]
            different += bool(changed)
            way = "streamed" if stream else "held"
            print(f"{name} ({answers} answers, {len(reference)} files): {who} {way}: "
                  + (f"DIFFERENT {', '.join(changed)}" if changed else "identical"), flush=True)  # fmt: skip
    return different


if __name__ == "__main__":
    raise SystemExit(main())
