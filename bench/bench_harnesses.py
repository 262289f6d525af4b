"""(a) End to end: proctor against a plain standard-library client (urllib + a thread pool), the
same N arithmetic prompts against the same zero-latency stub (its own process), each one fresh
process (start-up, asking, grading, writing results), at 1,000 and 10,000 samples, concurrency
32, several repetitions, interleaved. lm-evaluation-harness and Inspect AI run the same 1,000
prompts alongside (only at the smallest size: they take ten times as long).

    .venv/bin/python bench/bench_harnesses.py [--sizes 1000,10000] [--reps 3] [--concurrency 32]

lm-eval and Inspect are installed in their own virtualenvs (bench/venvs.py); one that cannot be
installed is skipped with the reason."""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from common import PROCTOR, PY, Timing, child_env, stub_process, timed
from venvs import Venv, ensure

# The yardstick: nothing but the standard library. It reads the prompts proctor would
# send, asks them through urllib from 32 threads (a connection per request, as urlopen does),
# and checks each reply's last line against the target: the least a harness can do.
STDLIB_CLIENT = r"""
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
url, path, conc = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(line) for line in open(path)]
def ask(row):
    body = json.dumps({"model": "stub", "messages": [{"role": "user", "content": row["prompt"]}],
                       "max_tokens": 256, "temperature": 0}).encode()
    req = urllib.request.Request(url + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)["choices"][0]["message"]["content"]
with ThreadPoolExecutor(conc) as pool:
    texts = list(pool.map(ask, rows))
ok = sum(t.strip().splitlines()[-1].removeprefix("Final answer: ").strip() == r["target"]
         for t, r in zip(texts, rows))
print(ok, len(rows))
"""
# One more proctor run per size, in process, with a timestamp at each phase (wrappers around
# the functions that mark them; one that is not there any more is simply not marked).
PHASES = r"""
import functools, json, sys, time
T0 = time.perf_counter()
marks = {}
import proctor.cli.app as app
import proctor.runs.ask as runner
import proctor.tasks.registry as registry
import proctor.providers.openai_compat as oc
marks["imports"] = time.perf_counter() - T0
def wrap(mod, name, label):
    f = getattr(mod, name, None)
    if f is None:
        return
    @functools.wraps(f)
    def g(*a, **k):
        try:
            return f(*a, **k)
        finally:
            marks[label] = time.perf_counter() - T0
    setattr(mod, name, g)
wrap(registry, "load_for_run", "paper")
complete = oc.OpenAICompatProvider.complete
async def timed_complete(self, *a, **k):
    marks.setdefault("first request", time.perf_counter() - T0)
    try:
        return await complete(self, *a, **k)
    finally:
        marks["last reply"] = time.perf_counter() - T0
oc.OpenAICompatProvider.complete = timed_complete
sys.argv = ["proctor", *sys.argv[1:]]
try:
    app.main()
except SystemExit as e:
    if e.code:
        raise
marks["exit"] = time.perf_counter() - T0
print("PHASES " + json.dumps(marks))
"""
PHASE_NAMES = ("imports", "paper made", "store, cache keys → first request", "asking",
               "grading, report files, terminal", "total (in process)")  # fmt: skip


def _phases(marks: dict[str, float]) -> list[float]:
    """Seconds of each of `PHASE_NAMES`, from the marks of one run."""
    points = [marks["imports"], marks.get("paper", marks["imports"]), marks["first request"],
              marks["last reply"], marks["exit"]]  # fmt: skip
    return [points[0], *(b - a for a, b in itertools.pairwise(points)), points[-1]]


TARGETS = {1000: 1.5, 10_000: 1.2}
"""proctor / the stdlib client, at most, by size (the issue's)."""

LM_EVAL_TASK = """task: proctor_arith
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{target}}}}"
generation_kwargs:
  until: ["<|never|>"]
  max_gen_toks: 256
  do_sample: false
filter_list:
  - name: final
    filter:
      - function: regex
        regex_pattern: "Final answer: (-?[0-9.]+)"
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
"""

INSPECT_TASK = """from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import pattern
from inspect_ai.solver import generate


@task
def arith():
    return Task(
        dataset=json_dataset({data!r}, lambda r: Sample(input=r["prompt"], target=r["target"])),
        solver=generate(),
        scorer=pattern(r"Final answer: (-?[0-9.]+)"),
    )
"""


def write_dataset(n: int, work: Path) -> Path:
    from proctor.tasks.registry import get_task, load_for_run, resolve_variant

    task = get_task("arithmetic")
    variant = resolve_variant(task, None)
    path = work / "samples.jsonl"
    with path.open("w") as f:
        for s in load_for_run(task, n=n).samples:
            prompt = task.build_prompt(s, variant, "en").messages[-1].content
            f.write(json.dumps({"id": s.id, "prompt": prompt, "target": s.target}) + "\n")
    return path


def main() -> dict[str, object]:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000", help="sample counts, comma-separated")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--skip-others", action="store_true", help="only proctor and the stdlib client")
    a = ap.parse_args()
    sizes = tuple(int(x) for x in a.sizes.split(","))
    return run(sizes, a.reps, a.concurrency, others=not a.skip_others)


HARNESSES = ("stdlib", "proctor", "lm-eval", "inspect")


def run(
    sizes: tuple[int, ...] = (1000, 10_000), reps: int = 3, conc: int = 32, *, others: bool = True
) -> dict[str, object]:
    """Every size against one stub; lm-eval and Inspect at the smallest size only."""
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-a-"))
    venvs = {k: ensure(k) for k in ("lm-eval", "inspect")} if others else {}
    stdlib_py = work / "stdlib_client.py"
    stdlib_py.write_text(STDLIB_CLIENT)
    out: dict[str, object] = {"concurrency": conc, "reps": reps, "workdir": str(work)}
    by_size: dict[str, object] = {}
    with stub_process() as url:
        for n in sizes:
            with_others = dict(venvs) if n == min(sizes) else {}
            by_size[str(n)] = _one_size(n, reps, conc, url, work / str(n), stdlib_py, with_others,
                                        others_asked=others)  # fmt: skip
    out["sizes"] = by_size
    out["phase_names"] = PHASE_NAMES
    return out


def _one_size(n: int, reps: int, conc: int, url: str, work: Path, stdlib_py: Path,
              venvs: dict[str, Venv], *, others_asked: bool) -> dict[str, object]:  # fmt: skip
    work.mkdir(parents=True)
    data = write_dataset(n, work)
    timings: dict[str, Timing] = {k: Timing(k) for k in HARNESSES}
    for k in ("lm-eval", "inspect"):
        if not others_asked:
            timings[k].note = "not run (--skip-others)"
        elif k not in venvs:
            timings[k].note = "run at the smallest size only"
        elif venvs[k].python is None:
            timings[k].note = f"skipped: {venvs[k].why_not}"
    (work / "lm_tasks").mkdir()
    (work / "lm_tasks" / "proctor_arith.yaml").write_text(LM_EVAL_TASK.format(data=data))
    (work / "inspect_task.py").write_text(INSPECT_TASK.format(data=str(data)))
    proctor_run = [*PROCTOR, "run", "arithmetic", "--n", str(n), "-m", f"openai-compat/stub@{url}",
                   "--concurrency", str(conc)]  # fmt: skip
    # Untimed warm-up of both: bytecode compiled, files in the page cache, the stub's first
    # connections made.
    timed([PY, str(stdlib_py), url, str(data), str(conc)])
    timed([*proctor_run[:5], "--n", "5", *proctor_run[7:], "-r", str(work / "warm-up")])
    for rep in range(reps):
        # interleaved, so a burst of load from other work on the machine hits all alike
        timings["stdlib"].runs.append(timed([PY, str(stdlib_py), url, str(data), str(conc)]))
        res = work / f"proctor-{rep}"
        timings["proctor"].runs.append(
            timed([*proctor_run, "-r", str(res)], log=work / f"proctor-{rep}.log")
        )
        shutil.rmtree(res, ignore_errors=True)
        lm = venvs.get("lm-eval")
        if lm is not None and lm.python is not None:
            try:
                timings["lm-eval"].runs.append(timed(
                    [str(lm.python), "-m", "lm_eval", "--model", "local-chat-completions",
                     "--model_args", f"model=stub,base_url={url}/chat/completions,"
                     f"num_concurrent={conc},max_retries=1,tokenized_requests=False,"
                     "eos_string=<|never|>",
                     "--tasks", "proctor_arith", "--include_path", str(work / "lm_tasks"),
                     "--apply_chat_template", "--output_path", str(work / f"lm-{rep}")],
                    env=child_env(OPENAI_API_KEY="sk-bench", HF_DATASETS_OFFLINE="1",
                                  HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false"),
                    log=work / f"lm-{rep}.log", cwd=work,
                ))  # fmt: skip
            except Exception as e:  # recorded, not fatal: the table says why
                timings["lm-eval"].note = f"failed: {str(e)[-300:]}"
                venvs.pop("lm-eval")
        ins = venvs.get("inspect")
        if ins is not None and ins.python is not None:
            try:
                timings["inspect"].runs.append(timed(
                    [str(ins.python), "-m", "inspect_ai", "eval", "inspect_task.py",
                     "--model", "openai-api/stub/stub", "--max-connections", str(conc),
                     "--display", "none", "--log-dir", str(work / f"inspect-{rep}")],
                    env=child_env(STUB_BASE_URL=url, STUB_API_KEY="sk-bench",
                                  INSPECT_DISPLAY="none"),
                    log=work / f"inspect-{rep}.log", cwd=work,
                ))  # fmt: skip
            except Exception as e:
                timings["inspect"].note = f"failed: {str(e)[-300:]}"
                venvs.pop("inspect")
    phases_py = work / "phases.py"
    phases_py.write_text(PHASES)
    done = subprocess.run([PY, str(phases_py), *proctor_run[3:], "-r", str(work / "phases")],
                          capture_output=True, text=True, env=child_env(), timeout=900)  # fmt: skip
    found = [x for x in done.stdout.splitlines() if x.startswith("PHASES ")]
    out: dict[str, object] = {
        k: {"runs": t.runs, "median": t.median, "spread": t.spread, "note": t.note}
        for k, t in timings.items()
    }
    p = timings["proctor"].median
    others_m = [timings[k].median for k in ("lm-eval", "inspect") if timings[k].runs]
    out["ratios"] = {
        "proctor_over_stdlib": p / timings["stdlib"].median,
        "fastest_other_over_proctor": (min(others_m) / p) if others_m else None,
    }
    out["target"] = TARGETS.get(n)
    out["phases"] = _phases(json.loads(found[-1][7:])) if found else None
    out["n"] = n
    for k, t in timings.items():
        print(f"{n:>6} {k:8s} median {t.median:7.2f} s  spread {t.spread}  {t.note}", flush=True)
    print(json.dumps(out["ratios"]), flush=True)
    return out


if __name__ == "__main__":
    main()
