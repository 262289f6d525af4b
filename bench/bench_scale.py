"""(b) latency-bound throughput, (c) embedded model vs a bare llama-cpp loop, (d) re-grading
stored records, (e) peak memory by run size. Each part is a function returning a dict; run one
with `.venv/bin/python bench/bench_scale.py b|c|d|e [--n N]`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PY, child_env, stub_process


def _plan(models: tuple[str, ...], n: int, results: Path, conc: int, variant: str = "B") -> object:
    from proctor.runs.plan import Calling, RunPlan
    from proctor.tasks.registry import get_task, load_for_run
    from proctor.types import GenerationParams

    task = get_task("arithmetic")
    data = load_for_run(task, n=n)
    return RunPlan(
        task=task, samples=data.samples, dataset_hash=data.content_hash,
        generator_version=data.generator_version, models=models, variant=variant, lang="en",
        params=GenerationParams(max_tokens=32 if variant == "A" else 256, timeout_s=120),
        results_dir=results, calling=Calling(concurrency=conc),
    )  # fmt: skip


RAW_ASYNC = r"""
import asyncio, json, sys, time
import aiohttp
url, prompts_file, conc = sys.argv[1], sys.argv[2], int(sys.argv[3])
prompts = json.load(open(prompts_file))
async def main():
    gate = asyncio.Semaphore(conc)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=conc)) as s:
        async def ask(messages):
            async with gate:
                body = {"model": "stub", "messages": messages, "max_tokens": 256, "temperature": 0}
                async with s.post(url + "/chat/completions", json=body) as r:
                    return (await r.json())["choices"][0]["message"]["content"]
        return await asyncio.gather(*(ask(m) for m in prompts))
start = time.perf_counter()
asyncio.run(main())
print(json.dumps({"asking_s": time.perf_counter() - start}))
"""


def latency(
    n: int = 1000, conc: int = 64, latency_s: float = 0.1, reps: int = 3
) -> dict[str, object]:
    """(b): asking time of `execute` (in process; the stub in its own) against N·latency/conc,
    and, in the same run against the same stub, a bare asyncio + aiohttp client sending the very
    same messages: the floor this machine and stub allow (its own CPU and the stub's queue)."""
    from proctor.runs.ask import execute
    from proctor.tasks.registry import get_task, load_for_run

    ideal = n * latency_s / conc
    task = get_task("arithmetic")
    messages = [
        [{"role": m.role, "content": m.content} for m in task.build_prompt(s, "B", "en").messages]
        for s in load_for_run(task, n=n).samples
    ]
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-b-"))
    (work / "prompts.json").write_text(json.dumps(messages))
    (work / "raw.py").write_text(RAW_ASYNC)
    runs, raw = [], []
    with stub_process("--latency", str(latency_s)) as url:
        for _ in range(reps):  # interleaved, so both meet the same load
            out = subprocess.run([PY, str(work / "raw.py"), url, str(work / "prompts.json"),
                                  str(conc)], capture_output=True, text=True, env=child_env(),
                                 check=True)  # fmt: skip
            raw.append(json.loads(out.stdout.strip().splitlines()[-1])["asking_s"])
            with tempfile.TemporaryDirectory() as d:
                plan = _plan((f"openai-compat/stub@{url}",), n, Path(d), conc)
                start = time.perf_counter()
                asyncio.run(execute(plan))  # type: ignore[arg-type]
                runs.append(time.perf_counter() - start)
    runs.sort()
    raw.sort()
    med, raw_med = runs[len(runs) // 2], raw[len(raw) // 2]
    return {"n": n, "concurrency": conc, "latency_s": latency_s, "ideal_s": ideal,
            "runs": runs, "median_s": med, "ratio": med / ideal,
            "raw_runs": raw, "raw_median_s": raw_med, "raw_ratio": raw_med / ideal,
            "over_raw": med / raw_med}  # fmt: skip


BARE_LOOP = r"""
import json, sys, time
from pathlib import Path
from proctor.providers.local_runtime import load_runtime
import os
path, prompts_file, max_tokens = sys.argv[1], sys.argv[2], int(sys.argv[3])
prompts = json.load(open(prompts_file))
# the same binding proctor's local provider would load (llama-cpp-python or xllamacpp), asked bare
llama = load_runtime(Path(path), n_ctx=2048, n_threads=max(1, os.cpu_count() or 1), seed=0)
start = time.perf_counter()
for p in prompts:
    llama.create_chat_completion(messages=p, temperature=0.0, max_tokens=max_tokens, seed=0)
print(json.dumps({"asking_s": time.perf_counter() - start}))
"""

PROCTOR_LOCAL = r"""
import asyncio, json, sys, time
sys.path.insert(0, sys.argv[3])
from bench_scale import _plan
from proctor.runs.ask import execute
n, results = int(sys.argv[1]), sys.argv[2]
from pathlib import Path
plan = _plan(("local",), n, Path(results), 1, variant="A")
from proctor.providers.registry import make_provider
provider = make_provider("local")
provider._load()  # load outside the timing, as the bare loop does
start = time.perf_counter()
asyncio.run(execute(plan, providers={"local": provider}))
print(json.dumps({"asking_s": time.perf_counter() - start}))
"""


def embedded(n: int = 20, reps: int = 3) -> dict[str, object]:
    """(c): the embedded model through proctor's runner vs a bare loop over the same runtime
    binding (llama-cpp-python or xllamacpp, whichever proctor loads), same prompts, same max_tokens, model loading excluded from both."""
    try:
        from proctor.providers.local import embedded_model_path
        from proctor.tasks.registry import get_task, load_for_run

        path = embedded_model_path()
    except Exception as e:
        return {"skipped": f"embedded model not installed: {e}"}
    task = get_task("arithmetic")
    prompts = [  # the very messages proctor sends
        [{"role": m.role, "content": m.content} for m in task.build_prompt(s, "A", "en").messages]
        for s in load_for_run(task, n=n).samples
    ]
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-c-"))
    (work / "prompts.json").write_text(json.dumps(prompts))
    (work / "bare.py").write_text(BARE_LOOP)
    (work / "proctor_local.py").write_text(PROCTOR_LOCAL)
    bench_dir = str(Path(__file__).resolve().parent)
    bare, ours = [], []
    for rep in range(reps):
        out = subprocess.run([PY, str(work / "bare.py"), str(path), str(work / "prompts.json"),
                              "32"], capture_output=True, text=True, env=child_env(), check=True)  # fmt: skip
        bare.append(json.loads(out.stdout.strip().splitlines()[-1])["asking_s"])
        out = subprocess.run([PY, str(work / "proctor_local.py"), str(n), str(work / f"r{rep}"),
                              bench_dir], capture_output=True, text=True, env=child_env(),
                             check=True)  # fmt: skip
        ours.append(json.loads(out.stdout.strip().splitlines()[-1])["asking_s"])
    bare.sort()
    ours.sort()
    b, o = bare[len(bare) // 2], ours[len(ours) // 2]
    # throughput ratio: proctor's samples/s over the bare loop's (≥ 0.95 is the target)
    from proctor.providers.local_runtime import runtime_name

    return {"n": n, "max_tokens": 32, "runtime": runtime_name(), "bare_runs": bare, "proctor_runs": ours,
            "bare_s": b, "proctor_s": o, "ratio": b / o}  # fmt: skip


def regrade(n: int = 100_000, reps: int = 3) -> dict[str, object]:
    """(d): `grade_run` over N stored records (read, grade, write the scores that changed), in
    process, interleaved: keeping every graded item (`runs`, `median_s`), streaming in one
    process (`keep_items=False`: `stream_runs`, `stream_median_s`), and in worker processes
    (`pool_runs`, `pool_median_s`: as many as `proctor score` takes here, `score_workers`, or 2
    where it takes one, to say what they would give)."""
    from proctor.runs.grade import grade_run, grade_workers
    from proctor.store import RunStore
    from proctor.tasks.registry import get_task, load_for_run
    from proctor.types import GenerationParams, Record, RunInfo, Usage

    task = get_task("arithmetic")
    samples = load_for_run(task, n=n).samples
    pool_workers = max(2, grade_workers(n))
    with tempfile.TemporaryDirectory() as d, RunStore.open(Path(d)) as store:
        info = RunInfo(run_id="bench-regrade", task="arithmetic", models=("m",),
                       dataset_hash="x", dataset_size=n, generator_version="x",
                       prompt_variant="B", lang="en", created_at="2026-01-01T00:00:00",
                       params=GenerationParams(), seed=None)  # fmt: skip
        store.create_run(info, samples, "fp", {})
        recs = [
            Record(run_id="bench-regrade", model="m", sample_id=s.id, status="ok",
                   text=f"Step 1: work.\nFinal answer: {s.target if i % 3 else '0'}",
                   finish_reason="stop", usage=Usage(50, 10), latency_s=0.01, attempts=1,
                   prompt_variant="B", lang="en", reported_model="m", epoch=0)
            for i, s in enumerate(samples)
        ]  # fmt: skip
        for i in range(0, n, 10_000):
            store.add_records(recs[i : i + 10_000])
        del recs
        runs, stream, pooled = [], [], []
        for _ in range(reps):
            start = time.perf_counter()
            grade_run(store, "bench-regrade", task)
            runs.append(time.perf_counter() - start)
            start = time.perf_counter()
            grade_run(store, "bench-regrade", task, keep_items=False)
            stream.append(time.perf_counter() - start)
            start = time.perf_counter()  # as `proctor score` would on a machine of 3+ cores
            grade_run(store, "bench-regrade", task, keep_items=False, workers=pool_workers)
            pooled.append(time.perf_counter() - start)
    runs.sort()
    stream.sort()
    pooled.sort()
    return {"n": n, "runs": runs, "median_s": runs[len(runs) // 2],
            "stream_runs": stream, "stream_median_s": stream[len(stream) // 2],
            "cores": os.cpu_count(), "score_workers": grade_workers(n),
            "pool_workers": pool_workers, "pool_runs": pooled,
            "pool_median_s": pooled[len(pooled) // 2]}  # fmt: skip


MEMORY_CHILD = r"""
import asyncio, json, sys, time
sys.path.insert(0, sys.argv[4])
from pathlib import Path
from bench_scale import _plan
from proctor.runs.ask import execute
from proctor.runs.grade import grade_run
from proctor.store import RunStore
mode, n, results = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
start = time.perf_counter()
if mode == "run":
    plan = _plan(("fake/const:Final answer: 7",), n, results, 64)
    asyncio.run(execute(plan))
else:
    from proctor.tasks.registry import get_task
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        run_id = run.run_id
        # The re-grade alone first (streaming, as `proctor score` grades; its peak is the
        # high-water mark so far; one line of its own), then the whole `proctor score` command
        # in this process: the same re-grade, then the report of every item (the last line:
        # "s" and "peak_mb").
        grade_run(store, run_id, get_task("arithmetic"), keep_items=False)
        hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
        print(json.dumps({"stream_s": time.perf_counter() - start,
                          "stream_peak_mb": int(hwm.split()[1]) / 1024}))
    import contextlib, io
    from proctor.cli.app import main
    sys.argv = ["proctor", "score", run_id, "--results-dir", str(results)]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main()
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork + exec
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"s": time.perf_counter() - start, "peak_mb": int(hwm.split()[1]) / 1024}))
"""


def memory(sizes: tuple[int, ...] = (1_000, 10_000, 100_000)) -> dict[str, object]:
    """(e): peak RSS of a process that runs N samples through `execute` (a scripted provider, no
    HTTP: the harness's own memory), and of another that re-grades the stored run (`grade_run`
    streaming, then the whole `proctor score` command: re-grade and the report of every item)."""
    work = Path(tempfile.mkdtemp(prefix="proctor-bench-e-"))
    (work / "child.py").write_text(MEMORY_CHILD)
    bench_dir = str(Path(__file__).resolve().parent)
    rows: dict[str, dict[str, float]] = {}
    for n in sizes:
        row: dict[str, float] = {}
        for mode in ("run", "grade"):
            out = subprocess.run(
                [PY, str(work / "child.py"), mode, str(n), str(work / f"r{n}"), bench_dir],
                capture_output=True, text=True, env=child_env(), check=True,
            )  # fmt: skip
            lines = [json.loads(x) for x in out.stdout.strip().splitlines() if x.startswith("{")]
            got = lines[-1]
            row[f"{mode}_s"], row[f"{mode}_peak_mb"] = got["s"], got["peak_mb"]
            for extra in lines[:-1]:  # the grade child's streaming pass
                row.update(extra)
        rows[str(n)] = row
    return {"sizes": rows}


PARTS = {"b": latency, "c": embedded, "d": regrade, "e": memory}

if __name__ == "__main__":
    part = sys.argv[1]
    kw = {"n": int(sys.argv[3])} if len(sys.argv) > 3 and sys.argv[2] == "--n" else {}
    print(json.dumps(PARTS[part](**kw), indent=2))  # type: ignore[operator]
