"""`proctor score RUN --diff`: a grader change as a reviewable diff, computed and written here
(the CLI prints it).

Before the run is re-graded, its stored grades and the grader version that made them are read
(`grading_before`); after, every answer whose verdict (outcome) flipped, old → new with both
rules and an excerpt of the reply, and a paired test of the new grader against the old one on
the answers both scored (exact McNemar on correct / not correct), written to `grader_diff.json`
in the run folder (`grading_diff`). The store records the new grader version (`gradings`).

A run imported from another harness (`proctor import`) is always diffed against that harness's
own verdicts (its first grader), whatever proctor stored before: the diff is then every answer
the two harnesses grade differently, correct against not correct (their "wrong" stands for any
of proctor's other scored outcomes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from proctor.report.atomic import write_text_atomic
from proctor.report.text import one_line
from proctor.runs.stored import open_existing
from proctor.stats.paired import compare_paired, format_p, signed_points
from proctor.store import RunStore
from proctor.store.imported import verdicts
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


@dataclass(frozen=True)
class Flip:
    """One answer whose verdict the re-grade changed."""

    key: Key
    was: Score
    now: Score
    excerpt: str
    """The reply's end, on one line."""


@dataclass(frozen=True)
class GradingDiff:
    """What a re-grade changed, as written to `grader_diff.json` (at `path`)."""

    run_id: str
    old_grader: str | None
    new_grader: str | None
    answers: int
    """Answers the new grader graded."""
    had_old: bool
    """Whether any grade was stored before."""
    flipped: list[Flip]
    paired: dict[str, object]
    """The paired test's summary; its "sentence" says it in words."""
    path: Path


def grading_before(results_dir: Path, run_ref: str) -> GradingBefore:
    """The run's grades before a re-grade (an imported run's: its harness's own verdicts)."""
    with open_existing(results_dir) as store:
        run_id = store.resolve(run_ref)
        theirs = _imported_grades(store, run_id)
        if theirs is not None:
            return theirs
        return GradingBefore(run_id, store.grader_version(run_id), store.scores(run_id))


def _imported_grades(store: RunStore, run_id: str) -> GradingBefore | None:
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


def _flip_row(flip: Flip) -> dict[str, object]:
    model, sample, epoch = flip.key
    was, now = flip.was, flip.now
    return {
        "model": model,
        "sample_id": sample,
        "epoch": epoch,
        "old": {"outcome": was.outcome, "rule": was.rule, "extracted": was.extracted},
        "new": {"outcome": now.outcome, "rule": now.rule, "extracted": now.extracted},
        "reply_excerpt": flip.excerpt,
    }


def grading_diff(before: GradingBefore, results_dir: Path) -> GradingDiff:
    """What the re-grade changed against `before`, written to the run folder's
    grader_diff.json."""
    with open_existing(results_dir) as store:
        new_version = store.grader_version(before.run_id)
        new = store.scores(before.run_id)
        texts = {(r.model, r.sample_id, r.epoch): r.text for r in store.records(before.run_id)}
        path = store.run_dir(before.run_id) / "grader_diff.json"
    old = before.scores
    flipped = [
        Flip(k, old[k], new[k], one_line(texts.get(k, ""), _EXCERPT, tail=True))
        for k in sorted(new)
        if k in old and _differs(old[k], new[k], before.coarse)
    ]
    paired = _paired(old, new)
    document = {
        "run_id": before.run_id,
        "old_grader": before.grader_version,
        "new_grader": new_version,
        "answers": len(new),
        "flipped": [_flip_row(f) for f in flipped],
        "paired_test": paired,
    }
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return GradingDiff(
        before.run_id, before.grader_version, new_version, len(new), bool(old), flipped, paired,
        path,
    )  # fmt: skip
