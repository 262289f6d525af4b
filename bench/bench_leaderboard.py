"""(i) `proctor leaderboard` over many models × tasks: a generated results folder of TASKS runs
(one per task), each of MODELS models × ITEMS items, every answer graded, written through
`RunStore`. Measures the wall time and the peak RSS of `proctor leaderboard --json` (a child
process) the first time (the runs' cells computed) and again (the cells read), and checks the
board has every model and task and is the same both times.

    .venv/bin/python bench/bench_leaderboard.py [--models 500] [--tasks 10] [--items 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# imported after the sys.path lines above, which let them be found when this runs as a script
from common import PROCTOR, child_env, watched  # noqa: E402

from proctor.store import RunStore  # noqa: E402
from proctor.types import GenerationParams, Record, RunInfo, Sample, Score, Usage  # noqa: E402

TARGETS = {"peak_mb": 300}


def make_folder(root: Path, models: int, tasks: int, items: int) -> int:
    """The folder: one run per task, `models` × `items` answers each; returns the answers."""
    names = tuple(f"openai-compat/m{m:03d}@http://127.0.0.1:1/v1" for m in range(models))
    samples = [Sample(id=f"i{i:05d}", input=f"{i} + 7", target=str(i + 7)) for i in range(items)]
    with RunStore.open(root) as store:
        for t in range(tasks):
            run_id = f"20261201-0000{t:02d}-task{t:02d}-bench"
            info = RunInfo(
                run_id=run_id, task=f"task{t:02d}", models=names, dataset_hash=f"sha256:{t}",
                dataset_size=items, generator_version="bench", prompt_variant="B", lang="en",
                created_at=f"2026-12-01T00:00:{t:02d}+00:00", params=GenerationParams(),
                seed=None,
            )  # fmt: skip
            store.create_run(info, samples, f"fp-{t}", {})
            scores: list[tuple[str, str, int, Score]] = []
            for m, model in enumerate(names):
                records = []
                for s in samples:
                    right = (int(s.id[1:]) + m + t) % 100 < 100 - m % 60
                    records.append(
                        Record(
                            run_id=run_id, model=model, sample_id=s.id, status="ok",
                            text=f"Final answer: {s.target if right else 0}",
                            finish_reason="stop", usage=Usage(40, 12), latency_s=0.2,
                            attempts=1, prompt_variant="B", lang="en",
                        )
                    )  # fmt: skip
                    scores.append(
                        (model, s.id, 0, Score("correct" if right else "wrong", "bench", ""))
                    )
                store.add_records(records)
            store.save_scores(run_id, scores, f"task{t:02d}/1")
            store.set_status(run_id, "complete")
    return models * tasks * items


BEFORE = {"leaderboard_s": 151.5, "peak_mb": 251, "load": 15.8, "commit": "4da1bc6"}
"""(i) as measured before the board read stored cells: every answer read at each board."""


def run(models: int, tasks: int, items: int) -> dict[str, float]:
    """Generate the folder (no cells stored: as a results folder of an older proctor, or
    written without reports), then time `proctor leaderboard --json` over it twice: the first
    computes and stores each run's cells from its answers, the second reads them; peak RSS
    each (the child's own VmHWM)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "results"
        started = time.perf_counter()
        answers = make_folder(root, models, tasks, items)
        made = time.perf_counter() - started
        cmd = [*PROCTOR, "leaderboard", "--json", "-r", str(root)]
        first_s, _, first_mb = watched(cmd, child_env(), Path(tmp) / "first.json")
        again_s, _, again_mb = watched(cmd, child_env(), Path(tmp) / "again.json")
        board = json.loads((Path(tmp) / "first.json").read_text(encoding="utf-8"))
        assert len(board["models"]) == models and len(board["tasks"]) == tasks
        assert (Path(tmp) / "again.json").read_text(encoding="utf-8") == json.dumps(
            board, indent=2, ensure_ascii=False
        ) + "\n", "the board read from stored cells is the board computed"
    return {
        "load": os.getloadavg()[0],
        "models": models, "tasks": tasks, "items": items, "answers": answers,
        "generate_s": made, "leaderboard_s": first_s, "peak_mb": first_mb,
        "cells_s": again_s, "cells_peak_mb": again_mb,
    }  # fmt: skip


def render(got: dict[str, float]) -> list[str]:
    """The section of RESULTS.md (`run_all.py`)."""
    peak = max(got["peak_mb"], got.get("cells_peak_mb", 0))
    met = "met" if peak < TARGETS["peak_mb"] else "NOT met"
    return [
        f"## (i) `proctor leaderboard`: {got['models']:.0f} models × {got['tasks']:.0f} tasks "
        f"× {got['items']:.0f} items ({got['answers']:,.0f} answers)",
        "",
        f"- the folder generated through `RunStore` in {got['generate_s']:.0f} s (graded; "
        "bench/bench_leaderboard.py), one run per task, no board cells stored.",
        f"- `proctor leaderboard --json -r FOLDER` (a child process, startup included), the "
        f"first time (each run's cells computed from its answers and stored): "
        f"{got['leaderboard_s']:.1f} s, peak RSS {got['peak_mb']:.0f} MB; "
        f"again (the cells read, no answer): {got.get('cells_s', 0):.1f} s, peak RSS "
        f"{got.get('cells_peak_mb', 0):.0f} MB (target < {TARGETS['peak_mb']} MB: {met}; "
        "each the child's own VmHWM); the same board both times (checked). Load average "
        f"{got.get('load', 0):.1f} at the end (seconds stretch with it on a shared machine, "
        "memory does not).",
        f"- before (commit `{BEFORE['commit']}`, every answer read for every board, load "
        f"{BEFORE['load']}): {BEFORE['leaderboard_s']} s, peak RSS {BEFORE['peak_mb']} MB "
        "(wait4's, which counts the parent's pages too).",
        "- a run's cells (`proctor.runs.board_cells`, table `board_cells`): per model the "
        "report's own accuracy and interval, counts, tokens, and one byte per item for the "
        "paired comparisons of neighbours; stored by the run's report, or by the first board "
        "that ranks the run, and dropped by the store's triggers when its answers or grades "
        "change.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--items", type=int, default=20)
    a = parser.parse_args()
    print("\n".join(render(run(a.models, a.tasks, a.items))))


if __name__ == "__main__":
    main()
