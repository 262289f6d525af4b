"""Run every benchmark (a)–(j) in one go and write bench/RESULTS.md: every figure of issue 17,
before and after, each with its target and met/missed.

    .venv/bin/python bench/run_all.py            # the full sizes of the issue (~15 min, quiet box)
    .venv/bin/python bench/run_all.py --quick    # tiny sizes: checks the scripts run
    .venv/bin/python bench/run_all.py --parts gh # re-measure (g) and (h); keep the others'
                                                 # figures (and dates) from RESULTS.json
    .venv/bin/python bench/run_all.py --parts a --a-sizes 200,1000 --reps 1   # smaller sizes

"Before" is the figures issue 17 quotes (measured before its work, `QUOTED_BEFORE`), and where
a part can, the same measure on a checkout of the commit before it (g, h). Timings are medians
of repetitions in this one run; ratios compare numbers measured side by side, so they hold on a
busy machine better than the absolute seconds do."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_big_run
import bench_flat
import bench_harnesses
import bench_leaderboard
import bench_scale
import bench_startup
import bench_viewer
from common import load, machine

HERE = Path(__file__).resolve().parent

ISSUE_SIZES: dict[str, object] = {
    "a_sizes": [1000, 10_000], "reps": 3, "b_n": 1000, "d_n": 100_000,
    "e_sizes": [1_000, 10_000, 100_000], "f": [50, 2000], "g_reps": 7, "i": [500, 10, 200],
    "j": [50, 20_000, [500, 10, 200]],
}  # fmt: skip
QUICK_SIZES: dict[str, object] = {
    "a_sizes": [50, 200], "reps": 1, "b_n": 200, "d_n": 2000, "e_sizes": [500, 1000],
    "f": [3, 50], "g_reps": 2, "i": [20, 3, 5], "j": [3, 200, [20, 3, 5]],
}  # fmt: skip

QUOTED_BEFORE: dict[str, Any] = {
    "when": "2026-11-30",
    "where": "issue 17's own figures, measured before its work on a quiet 2-core machine "
    "(bench/RESULTS.md of commit 183b49b, 2026-11-30, and the issue's side-by-side run)",
    "stdlib_1k_s": 1.0, "proctor_1k_s": 2.6, "proctor_over_stdlib_1k": 2.7,
    "lm_eval_1k_s": 10.8, "inspect_1k_s": 27.0,
    "help_s": 0.32, "first_request_s": 0.6,
    "latency_over_ideal": 1.15, "bare_over_ideal": 1.10,
    "regrade_100k_s": 8.4, "score_100k_mb": 274,
    "big_run_s": 47, "big_report_s": 11, "report_html_mib": 13.6, "samples_csv_mib": 55,
}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a check that all runs)")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--skip-others", action="store_true", help="(a) without lm-eval and Inspect")
    ap.add_argument("--parts", default="abcdefghij",
                    help="the parts to measure now; the others are kept from RESULTS.json")  # fmt: skip
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite RESULTS.md from the RESULTS.json of the last run")  # fmt: skip
    ap.add_argument("--a-sizes", help="(a): sample counts, e.g. 1000,10000")
    ap.add_argument("--reps", type=int, help="(a)-(d): repetitions")
    ap.add_argument("--b-n", type=int, help="(b): samples at 100 ms latency")
    ap.add_argument("--d-n", type=int, help="(d): stored records re-graded")
    ap.add_argument("--e-sizes", help="(e): run sizes, e.g. 1000,10000,100000")
    ap.add_argument("--f", help="(f): MODELSxITEMS, e.g. 50x2000")
    ap.add_argument("--g-reps", type=int, help="(g): repetitions")
    a = ap.parse_args()
    if a.render_only:
        saved = json.loads(a.out.with_suffix(".json").read_text())
        a.out.write_text(_keep_setup(render(saved), a.out))
        print(a.out.read_text())
        return
    sizes = dict(QUICK_SIZES if a.quick else ISSUE_SIZES)
    given = {
        "a_sizes": a.a_sizes and [int(x) for x in a.a_sizes.split(",")],
        "reps": a.reps, "b_n": a.b_n, "d_n": a.d_n,
        "e_sizes": a.e_sizes and [int(x) for x in a.e_sizes.split(",")],
        "f": a.f and [int(x) for x in a.f.lower().split("x")], "g_reps": a.g_reps,
    }  # fmt: skip
    sizes.update({k: v for k, v in given.items() if v})
    started = time.time()
    saved_path = a.out.with_suffix(".json")
    res: dict[str, Any] = json.loads(saved_path.read_text()) if saved_path.exists() else {}
    if "sizes" not in res.get("a", {"sizes": 1}):
        del res["a"]  # the layout before (a) measured two sizes against the stdlib client
    old_meta = res.get("meta", {})
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="minutes")
    measured: dict[str, str] = dict(old_meta.get("measured") or {})
    part_sizes: dict[str, Any] = dict(old_meta.get("part_sizes") or {})
    reps = int(sizes["reps"])  # type: ignore[call-overload]
    models, items = sizes["f"]  # type: ignore[misc]
    parts = {
        "a": lambda: bench_harnesses.run(tuple(sizes["a_sizes"]), reps, 32,  # type: ignore[arg-type]
                                         others=not a.skip_others),
        "b": lambda: bench_scale.latency(n=int(sizes["b_n"]), reps=reps),  # type: ignore[call-overload]
        "c": lambda: bench_scale.embedded(n=3 if a.quick else 20, reps=1 if a.quick else 5),
        "d": lambda: bench_scale.regrade(n=int(sizes["d_n"]), reps=min(reps, 2)),  # type: ignore[call-overload]
        "e": lambda: bench_scale.memory(tuple(sizes["e_sizes"])),  # type: ignore[arg-type]
        "f": lambda: bench_big_run.big_run(models=models, n=items),
        "g": lambda: bench_startup.run(reps=int(sizes["g_reps"])),  # type: ignore[call-overload]
        "h": lambda: bench_viewer.run(),
        "i": lambda: bench_leaderboard.run(*sizes["i"]),  # type: ignore[misc]
        "j": lambda: bench_flat.run(*sizes["j"]),  # type: ignore[misc]
    }  # fmt: skip
    loads = [load()]
    for part, measure in parts.items():
        if part in a.parts or part not in res:
            print(f"--- ({part}) {datetime.datetime.now(datetime.UTC):%H:%M:%S}", flush=True)
            res[part] = measure()
            measured[part] = now
            part_sizes[part] = _issue_sized(part, sizes)
            loads.append(load())
    res["meta"] = {"machine": machine(), "loads": loads, "took_s": time.time() - started,
                   "date": now, "measured": measured, "parts": a.parts,
                   "part_sizes": part_sizes}  # fmt: skip
    a.out.parent.mkdir(parents=True, exist_ok=True)
    (a.out.with_suffix(".json")).write_text(json.dumps(res, indent=2, default=str))
    a.out.write_text(_keep_setup(render(res), a.out))
    print(a.out.read_text())


_SIZE_KEYS = {"a": ("a_sizes", "reps"), "b": ("b_n", "reps"), "d": ("d_n",),
              "e": ("e_sizes",), "f": ("f",), "g": ("g_reps",), "i": ("i",),
              "j": ("j",)}  # fmt: skip


def _issue_sized(part: str, sizes: dict[str, object]) -> bool:
    """Whether `part` ran at the issue's sizes (a smaller check is said so in RESULTS.md)."""
    return all(sizes[k] == ISSUE_SIZES[k] for k in _SIZE_KEYS.get(part, ()))


def _regrade_s(d: dict[str, object]) -> float:
    """What `proctor score`'s re-grade takes here: streaming (older results: keeping items)."""
    return float(d.get("stream_median_s", d["median_s"]))  # type: ignore[arg-type]


def _ok(flag: bool) -> str:
    return "met" if flag else "**missed**"


def _keep_setup(text: str, out: Path) -> str:
    """The sections measured apart, kept on a rewrite: the set-up (bench/bench_setup.py) and
    issue 28's whole-process comparison against the tree before the house moved."""
    old = out.read_text() if out.exists() else ""
    for name in ("bench_setup", "not_slower"):
        begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
        if begin in old and end in old:
            block = begin + old.split(begin, 1)[1].split(end, 1)[0] + end
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    return text


def render(r: dict[str, Any]) -> str:
    b, c, d, e, meta = r["b"], r["c"], r["d"], r["e"], r["meta"]
    sized = meta.get("part_sizes") or {}
    small = [k for k, issue_sized in sorted(sized.items()) if not issue_sized]
    lines = [
        "# proctor benchmarks",
        "",
        f"- Date: {meta['date']} (UTC); the parts measured then ({meta.get('parts', 'abcdef')}) "
        f"took {meta['took_s'] / 60:.1f} min. When each part was last measured: "
        + ", ".join(f"({k}) {v}" for k, v in sorted((meta.get("measured") or {}).items()))
        + ".",
        f"- Machine: {meta['machine']}.",
        f"- Load average (1/5/15 min) before and after each part measured: "
        f"{' → '.join(meta['loads'])}. "
        "The machine is shared: absolute seconds are inflated; ratios are measured side by side.",
        "- Reproduce: `.venv/bin/python bench/run_all.py` (all of (a)–(h), ~15 min on a quiet "
        "box; writes this file and `RESULTS.json`); some parts, keeping the others' figures: "
        "`--parts gh`; smaller sizes: `--quick`, or `--a-sizes 200,1000 --reps 1 --d-n 5000 "
        "--e-sizes 1000,5000 --f 5x200 --g-reps 2`; one part alone: "
        "`.venv/bin/python bench/bench_harnesses.py --sizes 1000,10000 --reps 3` (a),"
        " `.venv/bin/python bench/bench_scale.py b|c|d|e`, `.venv/bin/python bench/bench_big_run.py`"
        " (f), `bench/bench_startup.py` (g), `bench/bench_viewer.py` (h).",
        "- lm-eval and Inspect are installed by the script into "
        "`~/.cache/proctor/bench-venvs/` (override: `PROCTOR_BENCH_VENVS`), never into `.venv`.",
        "- Every Python process measured runs from bytecode, as an installed proctor does "
        "(`PYTHONDONTWRITEBYTECODE` is dropped for the children), after one untimed warm-up "
        "run.",
    ]
    if small:
        lines.append(
            f"- **Parts {', '.join(f'({k})' for k in small)} ran at smaller sizes than the "
            "issue's (a check that the scripts work): their figures are not the issue's.**"
        )
    lines += ["", *summary(r), ""]
    lines += _harnesses(r["a"]) if "sizes" in r.get("a", {}) else []
    lines += [
        f"## (b) {b['n']} samples, {b['latency_s'] * 1000:.0f} ms server latency, "
        f"concurrency {b['concurrency']}",
        "",
        f"- ideal N × latency / concurrency = {b['ideal_s']:.2f} s; proctor (`execute`, in "
        f"process) median {b['median_s']:.2f} s (runs {', '.join(f'{x:.2f}' for x in b['runs'])})"
        f" = **{b['ratio']:.2f}× ideal** (target ≤ 1.1×: {_ok(b['ratio'] <= 1.1)}).",
        f"- the floor on this machine, measured alongside: a bare asyncio + aiohttp client with "
        f"the same messages, same stub, same concurrency: median {b['raw_median_s']:.2f} s (runs "
        f"{', '.join(f'{x:.2f}' for x in b['raw_runs'])}) = {b['raw_ratio']:.2f}× ideal; proctor "
        f"= **{b['over_raw']:.2f}× the bare client**. What separates the bare client from the "
        "ideal is CPU: at 64 replies per 100 ms, the client's and the stub's per-request work "
        "(~0.4 ms and ~0.3 ms on this box) queue up behind each other on 2 cores.",
        "",
        "## (c) Embedded model (SmolLM2-135M, llama-cpp-python) through proctor vs a bare loop",
        "",
    ]
    if "skipped" in c:
        lines.append(f"- skipped: {c['skipped']}")
    else:
        lines.append(
            f"- {c['n']} prompts, max_tokens {c['max_tokens']}, model load excluded: bare loop "
            f"{c['bare_s']:.2f} s, proctor {c['proctor_s']:.2f} s → proctor runs at "
            f"**{c['ratio']:.2f}×** the bare loop's speed (target ≥ 0.95×: {_ok(c['ratio'] >= 0.95)}); "
            f"runs: bare {', '.join(f'{x:.1f}' for x in c['bare_runs'])} s, proctor "
            f"{', '.join(f'{x:.1f}' for x in c['proctor_runs'])} s; best against best "
            f"{min(c['bare_runs']) / min(c['proctor_runs']):.2f}×."
        )
    lines += [
        "",
        f"## (d) Re-grading {d['n']:,} stored records (`grade_run`: read, grade, save scores)",
        "",
        f"- `proctor score`'s re-grade (streaming, one process: what it does on "
        f"{d.get('cores', '?')} cores, where it takes {d.get('score_workers', 1)} worker(s)): "
        f"median **{_regrade_s(d):.2f} s** (target < 2 s: {_ok(_regrade_s(d) < 2)})"
        + (
            f"; in {d['pool_workers']} worker processes (what it takes on a machine of "
            f"{d['pool_workers'] + 1}+ cores; here they share {d.get('cores', '?')}): "
            f"{d['pool_median_s']:.2f} s (runs {', '.join(f'{x:.2f}' for x in d['pool_runs'])})"
            if "pool_median_s" in d
            else ""
        )
        + f"; keeping every graded item in memory as well (the API's `grade_run` default): "
        f"{d['median_s']:.2f} s.",
        "",
        "## (e) Peak memory (RSS) by run size, scripted provider (the harness's own memory)",
        "",
        "| samples | run: peak MB | run s | re-grade, streaming: peak MB | `proctor score` "
        "(re-grade, then the report of every item): peak MB | `proctor score` s |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    peaks, streams = [], []
    for n, row in e["sizes"].items():
        peaks.append(row["run_peak_mb"])
        stream = row.get("stream_peak_mb")
        streams.append(stream if stream is not None else float("nan"))
        lines.append(
            f"| {int(n):,} | {row['run_peak_mb']:.0f} | {row['run_s']:.1f} "
            f"| {'–' if stream is None else f'{stream:.0f}'} | {row['grade_peak_mb']:.0f} "
            f"| {row['grade_s']:.1f} |"
        )
    flat = max(peaks) / min(peaks)
    lines += ["", f"- target for the run, < 300 MB at every size: {_ok(max(peaks) < 300)}; "
              f"flat: {_ok(flat < 1.5)} (100k / 1k = {flat:.2f}×). Answers no longer add to it "
              "(RSS stays level while 100,000 are asked and stored); what grows is the paper "
              "itself: the plan holds every Sample (~0.65 KB each at 100k) and the to-do list. "
              "Re-grading streams in pages (flat). A report holds a run's answers only when "
              "that takes under 128 MB (`rereport.held_mb`: 1,000 and 10,000 here are held, ~2.3 KB an "
              "answer with its own sample); a larger one streams them from the store, and its "
              "statistics are counted as the answers are read (`proctor.stats.model_parts."
              "ModelTally`: no model's answers held; repeats, a task's own metrics, its "
              "confidences and a suite's gate hold one model's at a time) and emptied memos "
              "after them; a prompt is rebuilt only when shown.",
              "- \"run s\" stores every answer in the response cache too (`Calling`'s default, "
              "as `proctor run` does; 2026-12-02 at load ~4.4, 10,000 samples: 7.9 s with it, "
              "4.0 s with `cache=\"off\"`, measured side by side).",
              "- Profile notes and causes of the misses: `bench/PROFILE.md`.", ""]  # fmt: skip
    lines += _big_run(r["f"]) if "f" in r else []
    lines += ["", *bench_startup.render(r["g"])] if "g" in r else []
    lines += ["", *bench_viewer.render(r["h"])] if "h" in r else []
    lines += ["", *bench_leaderboard.render(r["i"])] if "i" in r else []
    lines += ["", *bench_flat.render(r["j"])] if "j" in r else []
    return "\n".join(lines)


def _harnesses(a: dict[str, Any]) -> list[str]:
    """(a): per size, every harness's times and proctor's ratio to the stdlib client."""
    lines = [
        f"## (a) End to end against a standard-library client: zero-latency stub, concurrency "
        f"{a['concurrency']}, {a['reps']} repetitions, each run a fresh process",
        "",
        "The yardstick is the issue's: a plain standard-library client (urllib + a thread pool of "
        f"{a['concurrency']}; `STDLIB_CLIENT` in bench/bench_harnesses.py) reading the prompts "
        "proctor sends, asking them, checking each reply's last line. proctor's time is the "
        "whole `proctor run`: start-up, making the paper, asking, storing, grading, every report "
        "file. lm-eval and Inspect AI run the smallest size alongside.",
        "",
        "| samples | harness | median s | min–max s | × stdlib client | note |",
        "|---:|---|---:|---|---:|---|",
    ]
    for n, row in a["sizes"].items():
        base = row["stdlib"]["median"]
        for k in bench_harnesses.HARNESSES:
            t = row[k]
            if not t["runs"] and k in ("lm-eval", "inspect") and "smallest" in (t["note"] or ""):
                continue
            med = f"{t['median']:.2f}" if t["runs"] else "–"
            ratio = f"{t['median'] / base:.2f}×" if t["runs"] else "–"
            lines.append(f"| {int(n):,} | {k} | {med} | {t['spread']} | {ratio} | {t['note'] or ''} |")
    lines.append("")
    for n, row in a["sizes"].items():
        ra, target = row["ratios"], row.get("target")
        verdict = f" (target ≤ {target}×: {_ok(ra['proctor_over_stdlib'] <= target)})" if target else ""
        fo = ra.get("fastest_other_over_proctor")
        lines.append(
            f"- {int(n):,} samples: proctor / stdlib client **{ra['proctor_over_stdlib']:.2f}×**"
            + verdict
            + (f"; the faster of lm-eval and Inspect takes {fo:.1f}× proctor's time" if fo else "")
            + "."
        )
    with_phases = {n: row["phases"] for n, row in a["sizes"].items() if row.get("phases")}
    if with_phases:
        names = a["phase_names"]
        lines += ["", "Where proctor's time goes, one more run of each size with a timestamp at "
                  "each phase (in process, same stub; seconds):", "",
                  "| samples | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]  # fmt: skip
        for n, marks in with_phases.items():
            lines.append(f"| {int(n):,} | " + " | ".join(f"{m:.2f}" for m in marks) + " |")
    lines += ["", "- Profiles of what still costs the time, and why: `bench/PROFILE.md`.", ""]
    return lines


def summary(r: dict[str, Any]) -> list[str]:
    """Every figure of issue 17: before (quoted, or measured live on the commit before its work),
    after (this file's parts), target, met or missed."""
    q = QUOTED_BEFORE
    rows: list[tuple[str, str, str, str, bool | None]] = []

    def row(what: str, target: str, before: str, after: str, met: bool | None = None) -> None:
        rows.append((what, target, before, after, met))

    if "sizes" in r.get("a", {}):
        sizes = r["a"]["sizes"]
        for n, s in sizes.items():
            ratio, target = s["ratios"]["proctor_over_stdlib"], s.get("target")
            before = (f"{q['proctor_1k_s']} s vs {q['stdlib_1k_s']} s = "
                      f"{q['proctor_over_stdlib_1k']}×") if int(n) == 1000 else "not measured"  # fmt: skip
            row(f"(a) end to end, {int(n):,} samples: proctor vs stdlib client",
                f"≤ {target}×" if target else "–", before,
                f"{s['proctor']['median']:.2f} s vs {s['stdlib']['median']:.2f} s = {ratio:.2f}×",
                ratio <= target if target else None)  # fmt: skip
        smallest = sizes[min(sizes, key=int)]
        for k, quoted in (("lm-eval", q["lm_eval_1k_s"]), ("inspect", q["inspect_1k_s"])):
            t = smallest[k]
            after = (f"{t['median']:.1f} s ({t['median'] / smallest['stdlib']['median']:.1f}× "
                     "stdlib)") if t["runs"] else (t["note"] or "–")  # fmt: skip
            quoted_here = f"{quoted} s" if int(min(sizes, key=int)) == 1000 else "not measured"
            row(f"(a) {k}, {int(min(sizes, key=int)):,} samples", "–", quoted_here, after)
    if "g" in r:
        g, med = r["g"], r["g"]["median"]
        row("(g) `proctor --help`", f"< {g['targets']['help']} s",
            f"{q['help_s']} s; live at `{g['before']}`: {med['help_before']:.2f} s",
            f"{med['help']:.2f} s", bool(g["help_met"]))  # fmt: skip
        row("(g) start → first request of a run", f"< {g['targets']['first_request']} s",
            f"~{q['first_request_s']} s of imports; live at `{g['before']}`: "
            f"{med['proctor_before']:.2f} s", f"{med['proctor']:.2f} s",
            bool(g["first_request_met"]))  # fmt: skip
    b = r["b"]
    row(f"(b) {b['latency_s'] * 1000:.0f} ms latency, concurrency {b['concurrency']}: × ideal",
        "≤ 1.1×", f"{q['latency_over_ideal']}× (bare aiohttp {q['bare_over_ideal']}×)",
        f"{b['ratio']:.2f}× (bare aiohttp {b['raw_ratio']:.2f}×)", b["ratio"] <= 1.1)  # fmt: skip
    d = r["d"]
    row(f"(d) re-grading {d['n']:,} stored records (`proctor score`'s re-grade)", "< 2 s",
        f"{q['regrade_100k_s']} s", f"{_regrade_s(d):.2f} s", _regrade_s(d) < 2)  # fmt: skip
    e = r["e"]["sizes"]
    big = max(e, key=int)
    row(f"(e) `proctor score` of {int(big):,} (re-grade, then the report of every item): peak RSS",
        "< 150 MB", f"{q['score_100k_mb']} MB (keeping every item)",
        f"{e[big]['grade_peak_mb']:.0f} MB"
        + (f" (its re-grade alone: {e[big]['stream_peak_mb']:.0f} MB)" if e[big].get("stream_peak_mb") else ""),
        e[big]["grade_peak_mb"] < 150)  # fmt: skip
    if "f" in r:
        f = r["f"]
        files = {k: v / 2**20 for k, v in f["files"].items()}
        label = f"(f) {f['models']} models × {f['n']:,} items"
        row(f"{label}: the run", "–", f"{q['big_run_s']} s", f"{f['run_s']:.0f} s")
        row(f"{label}: `proctor report` alone", "< 3 s", f"{q['big_report_s']} s",
            f"{f['report_s']:.1f} s", f["report_s"] < 3)  # fmt: skip
        row(f"{label}: report.html", "–", f"{q['report_html_mib']} MiB",
            f"{files.get('report.html', float('nan')):.1f} MiB")
        row(f"{label}: samples.csv", "–", f"{q['samples_csv_mib']} MiB",
            f"{files.get('samples.csv', float('nan')):.1f} MiB")
    if "h" in r:
        h = r["h"]
        pages = h["after"]["pages"]
        worst = max((p.get("first_paint_s", 0.0) for p in pages.values()), default=0.0)
        old = h["old"]["pages"].get("run page, 100k") or {}
        row("(h) viewer: slowest first paint (run page of 100,000 answers and 5 more pages)",
            f"< {h['targets']['first_paint_s']} s",
            f"live at `{h['before']}`: {old['first_paint_s']:.2f} s (its run page)"
            if "first_paint_s" in old and old.get("status", 200) == 200
            else f"live at `{h['before']}`: HTTP {old.get('status', '–')}",
            f"{worst:.2f} s", bool(h["paint_met"]))  # fmt: skip
        row("(h) viewer: peak RSS over every page", f"< {h['targets']['peak_mb']} MB",
            f"live at `{h['before']}`: {h['old'].get('peak_mb', float('nan')):.0f} MB",
            f"{h['after']['peak_mb']:.0f} MB", bool(h["memory_met"]))  # fmt: skip
    lines = [
        "## Issue 17's figures, before and after",
        "",
        f"Before: {q['where']}; \"live at\" = measured in this run on a checkout of the commit "
        "before issue 17's work. After: measured now, in the parts below.",
        "",
        "| figure | target | before | after | |",
        "|---|---|---|---|---|",
    ]
    for what, target, before, after, met in rows:
        mark = "" if met is None else _ok(met)
        lines.append(f"| {what} | {target} | {before} | {after} | {mark} |")
    missed = [w for w, *_, m in rows if m is False]
    lines += ["", f"- {len(rows) - len(missed) - sum(m is None for *_, m in rows)} targets met, "
              f"{len(missed)} missed; what still costs the time in each miss: `bench/PROFILE.md`."]  # fmt: skip
    return lines


def _big_run(f: dict[str, Any]) -> list[str]:
    """(f): a big run through the CLI, as a user types it."""
    browser = f["browser"]
    opened = (
        f"skipped: {browser['skipped']}" if "skipped" in browser
        else f"{browser['load_ms'] / 1000:.1f} s to the load event in headless Chromium "
        f"({browser['table_rows_drawn']} table rows drawn)"
    )  # fmt: skip
    files = ", ".join(f"{name} {size / 2**20:.1f} MiB" for name, size in f["files"].items())
    lines = [
        f"## (f) A big run: {f['models']} models × {f['n']:,} items = {f['calls']:,} calls, "
        f"zero-latency stub, `--concurrency {f['concurrency']}` per model",
        "",
        f"- `proctor run` (ask, store, grade, report): {f['run_s']:.0f} s"
        + (
            f" (asking: {f['asking_s']:.0f} s from the first answer stored to the last, "
            f"{f['calls'] / f['asking_s']:,.0f} calls/s)"
            if f.get("asking_s")
            else ""
        )
        + f", peak RSS "
        f"{f['run_peak_mb']:.0f} MB; `proctor report` alone (re-grade + every file): "
        f"{f['report_s']:.0f} s, peak RSS {f['report_peak_mb']:.0f} MB.",
        f"- files: {files}; report.html: {opened}.",
        "- the terminal report at 80 columns (first lines, progress bars left out):",
        "",
        "```",
        *f["head"][:30],
        "```",
        "",
    ]
    return lines


if __name__ == "__main__":
    main()
