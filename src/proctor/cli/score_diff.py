"""`proctor score RUN --diff`: a grader change as a reviewable diff.

Before the run is re-graded, its stored grades and the grader version that made them are read;
after, every answer whose verdict (outcome) flipped is printed (old → new, with both rules and
an excerpt of the reply), then a paired test of the new grader against the old one on the
answers both scored (exact McNemar on correct / not correct), and the same is written to
`grader_diff.json` in the run folder. The store records the new grader version (`gradings`).

A run imported from another harness (`proctor import`) is always diffed against that harness's
own verdicts (its first grader), whatever proctor stored before: the diff is then every answer
the two harnesses grade differently, correct against not correct (their "wrong" stands for any
of proctor's other scored outcomes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from proctor.errors import ProctorError
from proctor.report.atomic import write_text_atomic
from proctor.report.text import one_line
from proctor.stats.paired import compare_paired, format_p, signed_points
from proctor.store import RunStore
from proctor.types import Score

Key = tuple[str, str, int]
"""(model, sample id, epoch)"""
_EXCERPT = 80
_NOT_SCORED = ("call_failed", "unscored")


@dataclass(frozen=True)
class GradingBefore:
    """A run's grades as they were before a re-grade."""

    run_id: str
    grader_version: str | None
    scores: dict[Key, Score]
    coarse: bool = False
    """Compare correct / not correct / unscored only (another harness's verdicts)."""


def score_with_diff(
    run_ref: str, results_dir: Path, grade: Callable[[], None], console: Console
) -> None:
    """Read the run's grades, `grade` it (re-grade, report, exit code), then print the diff,
    also when `grade` exits with the run's own code (incomplete, calls failed)."""
    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    with RunStore.open(results_dir) as store:
        before = grading_before(store, run_ref)
    try:
        grade()
    except typer.Exit:
        _diff(before, results_dir, console)
        raise
    _diff(before, results_dir, console)


def _diff(before: GradingBefore, results_dir: Path, console: Console) -> None:
    with RunStore.open(results_dir) as store:
        report_grading_diff(before, store, console)


def grading_before(store: RunStore, run_ref: str) -> GradingBefore:
    run_id = store.resolve(run_ref)
    theirs = _imported_grades(store, run_id)
    if theirs is not None:
        return theirs
    return GradingBefore(run_id, store.grader_version(run_id), store.scores(run_id))


def _imported_grades(store: RunStore, run_id: str) -> GradingBefore | None:
    from proctor.store.imported import verdicts

    stored = verdicts(store, run_id)
    if not stored:
        return None
    grader = stored[0].grader
    origin = store.run_config(run_id).get("imported")
    if isinstance(origin, dict) and isinstance(origin.get("graders"), list) and origin["graders"]:
        grader = str(origin["graders"][0])
    scores = {
        (v.model, v.sample_id, v.epoch): Score(v.outcome, grader, v.explanation, v.extracted)
        for v in stored
        if v.grader == grader
    }
    return GradingBefore(run_id, grader, scores, coarse=True)


def _differs(old: Score, new: Score, coarse: bool) -> bool:
    if not coarse:
        return old.outcome != new.outcome
    side = {"correct": "correct", "unscored": "unscored", "call_failed": "unscored"}
    return side.get(old.outcome, "not correct") != side.get(new.outcome, "not correct")


def _paired(old: dict[Key, Score], new: dict[Key, Score]) -> dict[str, object]:
    both = [
        k
        for k in new
        if k in old and old[k].outcome not in _NOT_SCORED and new[k].outcome not in _NOT_SCORED
    ]
    a = [1.0 if new[k].outcome == "correct" else 0.0 for k in both]
    b = [1.0 if old[k].outcome == "correct" else 0.0 for k in both]
    comparison = compare_paired(a, b, names=("new grader", "old grader"))
    summary: dict[str, object] = {
        "answers": comparison.n,
        "new_correct": int(sum(a)),
        "old_correct": int(sum(b)),
        "became_correct": comparison.a_only,
        "became_not_correct": comparison.b_only,
        "test": comparison.test,
        "p_value": comparison.p_value,
        "verdict": comparison.verdict(),
    }
    if comparison.n:
        summary["sentence"] = (
            f"new grader vs old on {comparison.n} answers both scored: new − old ="
            f" {signed_points(comparison.difference)} points ({comparison.a_only} became correct,"
            f" {comparison.b_only} became not correct), {comparison.test} {format_p(comparison.p)}"
        )
    else:
        summary["sentence"] = "no answer was scored by both graders: nothing to compare"
    return summary


def report_grading_diff(before: GradingBefore, store: RunStore, console: Console) -> Path:
    """Print what the re-grade changed and write it to the run folder's grader_diff.json."""
    new_version = store.grader_version(before.run_id)
    new = store.scores(before.run_id)
    texts = {(r.model, r.sample_id, r.epoch): r.text for r in store.records(before.run_id)}
    old = before.scores
    flipped = [k for k in sorted(new) if k in old and _differs(old[k], new[k], before.coarse)]
    old_name = before.grader_version or "never graded"
    console.print(
        Text(f"Grader change: {old_name} → {new_version} ({len(new)} answers re-graded)", "bold")
    )
    if not old:
        console.print("no earlier grades were stored: there is nothing to compare yet")
    console.print(f"{len(flipped)} verdicts flipped" + (":" if flipped else "."))
    rows = []
    for k in flipped:
        model, sample, epoch = k
        was, now = old[k], new[k]
        excerpt = one_line(texts.get(k, ""), _EXCERPT, tail=True)
        where = f"{model} {sample}" + (f" #{epoch}" if epoch else "")
        console.print(
            Text(f"  {where}: {was.outcome} ({was.rule}) → {now.outcome} ({now.rule})  {excerpt!r}")
        )
        rows.append(
            {
                "model": model,
                "sample_id": sample,
                "epoch": epoch,
                "old": {"outcome": was.outcome, "rule": was.rule, "extracted": was.extracted},
                "new": {"outcome": now.outcome, "rule": now.rule, "extracted": now.extracted},
                "reply_excerpt": excerpt,
            }
        )
    paired = _paired(old, new)
    console.print(Text(str(paired["sentence"])))
    document = {
        "run_id": before.run_id,
        "old_grader": before.grader_version,
        "new_grader": new_version,
        "answers": len(new),
        "flipped": rows,
        "paired_test": paired,
    }
    path = store.run_dir(before.run_id) / "grader_diff.json"
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    console.print(Text(f"  {path}"))
    return path
