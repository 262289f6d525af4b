"""A fixed run of every kind of task, to show that a refactor changed no verdict.

    .venv/bin/python bench/verdict_snapshot.py OUT_DIR

Three scripted loopback models answer arithmetic, gsm8k, math500, aime, structured, mbpp and a
team suite with a fixed mix of reply forms (final-answer line, "The answer is", boxed, bare,
Chinese, wrong, no answer, truncated, a calculator claim, code, a failed call), chosen per
sample by a stable hash; each run goes through the public path (`proctor run`, then `proctor
score`) and its samples.csv is copied to OUT_DIR/<task>.csv, with the verdict columns alone in
OUT_DIR/<task>.verdicts.csv (and those `proctor run` itself stored, before the re-grade, in
OUT_DIR/<task>.run.verdicts.csv). Diff two OUT_DIRs (before and after) to see every flip:

    diff -r before/ after/ --include='*.verdicts.csv'
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

try:  # the scripted server lives in the tests' support since issue 28
    from support.stub.scripted import Scripted, run_scripted  # type: ignore[import-not-found]
except ImportError:  # a checkout from before: it shipped in the wheel
    from proctor.stub.scripted import Scripted, run_scripted  # type: ignore[no-redef]

# imported after the sys.path lines above, which let them be found when this runs as a script
from proctor.tasks.registry import get_task, load_for_run  # noqa: E402
from proctor.types import Sample  # noqa: E402

PROCTOR = str(ROOT / ".venv" / "bin" / "proctor")

RUNS: list[tuple[str, list[str]]] = [
    ("arithmetic", ["arithmetic", "--n", "60"]),
    ("gsm8k", ["gsm8k", "--limit", "40"]),
    ("math500", ["math500", "--limit", "40"]),
    ("aime", ["aime", "--limit", "12"]),
    ("structured", ["structured", "--limit", "30"]),
    ("mbpp", ["mbpp", "--limit", "6"]),
    ("suite", ["--suite", str(ROOT / "examples" / "support-desk.csv")]),
]

FORMS = [
    "Final answer: {t}",
    "The answer is {t}.",
    "So the result is \\boxed{{{t}}}",
    "Working it out step by step, I get {t}1.\nFinal answer: {t}1",
    "I cannot work this out.",
    "TRUNCATED",
    "I used a calculator to get {t}.",
    "FAIL",
    "{t}",
    "Answer: {t}\n\nQuestion: what is 2 + 2?\nAnswer: 4",
    "最终答案：{t}",
    "```python\nprint({t!r})\n```",
    "The answer is 7.",
]


def _samples(task: str, args: list[str]) -> list[Sample]:
    if task == "suite":
        from proctor.datasets.suites.loader import load_suite

        return list(load_suite(Path(args[1])).samples)
    t = get_task(task)
    n = int(args[args.index("--n") + 1]) if "--n" in args else None
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else None
    return list(load_for_run(t, n=n, limit=limit).samples)


def _script(samples: list[Sample], offset: int) -> Any:
    keys = [(s.input[:120].strip(), s) for s in samples]

    def answer(messages: list[dict[str, Any]]) -> Scripted:
        asked = str(messages[-1]["content"])
        found = next((s for key, s in keys if key and key in asked), None)
        target = found.target if found is not None else "0"
        pick = (zlib.crc32((found.id if found else asked).encode()) + offset) % len(FORMS)
        form = FORMS[pick]
        if form == "FAIL":
            return Scripted(status=500)
        if form == "TRUNCATED":
            return Scripted(f"Let me compute {target[:3]} step by", finish_reason="length")
        return Scripted(form.format(t=target))

    return answer


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        for task, args in RUNS:
            samples = _samples(task, args)
            with (
                run_scripted(_script(samples, 0)) as a,
                run_scripted(_script(samples, 3)) as b,
                run_scripted(_script(samples, 7)) as c,
            ):
                models = [f"{s.model}" for s in (a, b, c)]
                cmd = [PROCTOR, "run", *args, "-r", str(results), "--max-attempts", "1"]
                for m in models:
                    cmd += ["-m", m]
                ran = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            run_id = _last_run(results)
            # the grades `proctor run` stored as it went, then those of `proctor score`
            _verdicts(results / "runs" / run_id / "samples.csv", out / f"{task}.run.verdicts.csv",
                      models)  # fmt: skip
            scored = subprocess.run(
                [PROCTOR, "score", run_id, "-r", str(results)],
                capture_output=True, text=True, timeout=900,
            )  # fmt: skip
            print(f"{task}: run exit {ran.returncode}, score exit {scored.returncode}, {run_id}")
            csv_path = results / "runs" / run_id / "samples.csv"
            shutil.copy(csv_path, out / f"{task}.csv")
            _verdicts(csv_path, out / f"{task}.verdicts.csv", models)
    return 0


def _last_run(results: Path) -> str:
    runs = sorted((results / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
    return runs[-1].name


def _verdicts(src: Path, dst: Path, models: list[str]) -> None:
    names = {m: f"model-{'abc'[i]}" for i, m in enumerate(models)}
    with src.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    keep = ("model", "sample_id", "epoch", "outcome", "rule", "extracted", "normalized")
    with dst.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(keep)
        for row in rows:  # renamed first: the scripted models' ports differ from run to run
            row["model"] = names.get(row.get("model", ""), row.get("model", ""))
        for row in sorted(rows, key=lambda r: (r["model"], r["sample_id"], r["epoch"])):
            w.writerow([row.get(k, "") for k in keep])


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
