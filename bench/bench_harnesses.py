"""(a) proctor vs lm-evaluation-harness vs Inspect AI vs a raw threaded client: the same N
arithmetic prompts against the same zero-latency stub (its own process), end to end (each is
one fresh process: start-up, asking, grading, writing results), several repetitions.

    .venv/bin/python bench/bench_harnesses.py [--n 1000] [--reps 3] [--concurrency 64]

lm-eval and Inspect are installed in their own virtualenvs (bench/venvs.py); one that cannot be
installed is skipped with the reason."""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from common import PROCTOR, PY, Timing, child_env, stub_process, timed
from venvs import ensure

RAW_CLIENT = r"""
import json, sys, concurrent.futures as cf, httpx
url, path, conc = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(path)]
client = httpx.Client(base_url=url, limits=httpx.Limits(max_connections=conc, max_keepalive_connections=conc), timeout=60)
def ask(r):
    resp = client.post("chat/completions", json={"model": "stub", "messages": [{"role": "user", "content": r["prompt"]}], "max_tokens": 256, "temperature": 0})
    return resp.json()["choices"][0]["message"]["content"]
with cf.ThreadPoolExecutor(conc) as pool:
    texts = list(pool.map(ask, rows))
ok = sum(t.strip().splitlines()[-1].removeprefix("Final answer: ").strip() == r["target"] for t, r in zip(texts, rows))
print(ok, len(rows))
"""

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
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--skip-others", action="store_true", help="only proctor and the raw client")
    a = ap.parse_args()
    return run(a.n, a.reps, a.concurrency, others=not a.skip_others)


def run(n: int, reps: int, conc: int, *, others: bool = True) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-a-"))
    data = write_dataset(n, work)
    timings: dict[str, Timing] = {k: Timing(k) for k in ("raw", "proctor", "lm-eval", "inspect")}
    venvs = {k: ensure(k) for k in ("lm-eval", "inspect")} if others else {}
    for k in ("lm-eval", "inspect"):
        if k not in venvs:
            timings[k].note = "not run (--skip-others)"
        elif venvs[k].python is None:
            timings[k].note = f"skipped: {venvs[k].why_not}"
    (work / "lm_tasks").mkdir()
    (work / "lm_tasks" / "proctor_arith.yaml").write_text(LM_EVAL_TASK.format(data=data))
    (work / "inspect_task.py").write_text(INSPECT_TASK.format(data=str(data)))
    raw_py = work / "raw.py"
    raw_py.write_text(RAW_CLIENT)
    with stub_process() as url:
        for rep in range(reps):
            # interleaved, so a burst of load from other work on the machine hits all alike
            timings["raw"].runs.append(timed([PY, str(raw_py), url + "/", str(data), str(conc)]))
            res = work / f"proctor-{rep}"
            timings["proctor"].runs.append(timed(
                [*PROCTOR, "run", "arithmetic", "--n", str(n), "-m", f"openai-compat/stub@{url}",
                 "--concurrency", str(conc), "-r", str(res)],
                log=work / f"proctor-{rep}.log",
            ))  # fmt: skip
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
    out = {k: {"runs": t.runs, "median": t.median, "spread": t.spread, "note": t.note}
           for k, t in timings.items()}  # fmt: skip
    p = timings["proctor"].median
    others_m = [timings[k].median for k in ("lm-eval", "inspect") if timings[k].runs]
    out["ratios"] = {
        "proctor_over_raw": p / timings["raw"].median,
        "fastest_other_over_proctor": (min(others_m) / p) if others_m else None,
    }
    out["n"], out["concurrency"], out["reps"], out["workdir"] = n, conc, reps, str(work)
    for k, t in timings.items():
        print(f"{k:8s} median {t.median:7.2f} s  spread {t.spread}  {t.note}", flush=True)
    print(json.dumps(out["ratios"]))
    return out


if __name__ == "__main__":
    main()
