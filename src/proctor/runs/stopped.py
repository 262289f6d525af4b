"""A run stopped early on purpose: `proctor run … --sequential --margin 1pp` stops asking once
its anytime-valid test has decided (`proctor.runs.sequential`). Such a run is left "interrupted"
(`--resume RUN` asks the rest), with its design in the run config (key "sequential": margin,
batch, seed, alpha, the test); its reports then say "stopped early by design" and why (the
verdict read again from the stored grades, so `proctor report` says the same later), and
`proctor report` exits 0 for it. A sequential run cut short before its test decided (killed,
interrupted) is incomplete like any other."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from proctor.runs.grade import stored_items
from proctor.stats.run_statistics import RunStatistics
from proctor.stats.scores import item_scores
from proctor.store import RunStore
from proctor.types import GradedItem

SEQUENTIAL_KEY = "sequential"


def remember_design(
    store: RunStore, run_id: str, margin: float, batch: int, seed: int, alpha: float
) -> None:
    """Keep how a sequential run asks in its config (the first session's, as a resume cannot
    rewrite how the run began)."""
    from proctor.stats.sequential import METHOD

    design = {"margin": margin, "batch": batch, "seed": seed, "alpha": alpha, "test": METHOD}
    store.add_run_config(run_id, {SEQUENTIAL_KEY: design})


def paired_bounds(
    items: Iterable[GradedItem], models: Sequence[str], planned: int, alpha: float
) -> tuple[int, float, float, float]:
    """(items both models were scored on, mean of B − A, low, high): the confidence sequence
    over the stored grades of a run of `planned` items."""
    graded = list(items)
    a = item_scores([i for i in graded if i.record.model == models[0]])
    b = item_scores([i for i in graded if i.record.model == models[1]])
    common = [sid for sid in a if sid in b]
    if not common:
        return 0, 0.0, -1.0, 1.0
    from proctor.stats.sequential import mixing_precision, sequence_bounds

    total = sum(b[s] - a[s] for s in common)
    low, high = sequence_bounds(total, len(common), mixing_precision(planned), alpha)
    return len(common), total / len(common), float(low), float(high)


def stopped_early(store: RunStore, run_id: str) -> str:
    """Why the run stopped early by design, in one sentence; "" when it did not (not a
    sequential run, finished, or cut short before its test decided)."""
    design = store.run_config(run_id).get(SEQUENTIAL_KEY)
    if not isinstance(design, dict) or store.run_status(run_id) != "interrupted":
        return ""
    info = store.run_info(run_id)
    if len(info.models) != 2:
        return ""
    # Only a sequential run gets here: every report passes above, and the statistics below
    # (numpy's) would cost each plain run's start-up more than its report takes.
    from proctor.stats.margin import verdict_of
    from proctor.stats.paired import points, signed_points
    from proctor.stats.sequential import METHOD

    margin, alpha = float(design.get("margin", 0.0)), float(design.get("alpha", 0.05))
    n, effect, low, high = paired_bounds(
        stored_items(store, run_id), info.models, info.dataset_size, alpha
    )
    verdict = verdict_of(low, high, margin) if n else "INCONCLUSIVE"
    counts = store.count_records(run_id)
    asked = min(counts.get(m, 0) for m in info.models)
    if verdict == "INCONCLUSIVE" or asked >= info.dataset_size:
        return ""
    base, cand = info.models
    return (
        f"a sequential test (--sequential --margin {points(margin)}pp) decided {verdict} for "
        f"{cand} against {base} after {asked:,} of {info.dataset_size:,} items ({cand} − "
        f"{base} = {signed_points(effect)} points, anytime-valid bounds {signed_points(low)} to "
        f"{signed_points(high)}); the {info.dataset_size - asked:,} items left were not asked "
        f"on purpose, and the verdict stays valid under optional stopping "
        f"({design.get('test', METHOD)})"
    )


def with_stop(store: RunStore, run_id: str, stats: RunStatistics) -> RunStatistics:
    """`stats` with its run's state saying it stopped early by design, where it did."""
    why = stopped_early(store, run_id)
    if not why:
        return stats
    return replace(stats, completeness=replace(stats.completeness, stopped_early=why))
