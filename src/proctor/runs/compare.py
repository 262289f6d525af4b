"""Two stored runs (or two models of one) compared, in one place for `proctor compare`: which
runs and models, their stored grades, the comparison (`proctor.stats.comparison`, with the
margin verdict when a margin is asked) and the exit code it gives.

Exit codes (`proctor.runs.state`): without a margin, 1 when B is significantly worse than A,
else 0. With a margin: 0 for SUPERIOR, NON-INFERIOR and EQUIVALENT, 1 for INFERIOR, 7 for
INCONCLUSIVE (0 only when `allow_inconclusive`). Errors are `ProctorError`s (exit 2).
Nothing is written and no model is called.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from proctor.errors import ConfigError, ProctorError
from proctor.runs.grade import stored_items
from proctor.runs.state import EXIT_CHECK_FAILED, EXIT_INCONCLUSIVE, EXIT_OK
from proctor.stats.comparison import RunComparison, Side, compare_runs, side_labels
from proctor.stats.margin import parse_points
from proctor.stats.paired import DEFAULT_TEST, PairedTest
from proctor.store import RunStore
from proctor.types import GradedItem, RunInfo


@dataclass(frozen=True)
class CompareAsk:
    """What `proctor compare` was asked, as its options give it: `detect` in points, `margin`
    as written ("1pp"); the test and the margin's share are made here (`test`, `margin_share`)."""

    run_a: str
    run_b: str | None
    results_dir: Path
    models: tuple[str, str] | None = None
    confidence: float = DEFAULT_TEST.confidence
    alpha: float = DEFAULT_TEST.alpha
    power: float = DEFAULT_TEST.power
    detect: float | None = None
    resamples: int = DEFAULT_TEST.resamples
    seed: int = DEFAULT_TEST.seed
    imported: bool = False
    grader: str | None = None
    margin: str | None = None

    @property
    def test(self) -> PairedTest:
        share = None if self.detect is None else self.detect / 100.0
        return PairedTest(self.confidence, self.alpha, self.power, share, self.resamples, self.seed)

    def margin_share(self) -> float | None:
        """The margin as a share (0.01 for "1pp"); ConfigError when it is not points."""
        return None if self.margin is None else parse_points(self.margin)


def compare_stored(ask: CompareAsk) -> RunComparison:
    """The comparison `ask` names; ProctorError when the runs share no item or a name is wrong."""
    margin = ask.margin_share()  # a bad margin is refused before any run is read
    if ask.imported and (ask.run_b is not None or ask.models is not None):
        raise ConfigError("--imported compares the two graders of one run: name one run")
    info_a, items_a = _load(ask.run_a, ask.results_dir)
    info_b, items_b = (info_a, items_a) if ask.run_b is None else _load(ask.run_b, ask.results_dir)
    wanted: tuple[str | None, str | None] = ask.models or (None, None)
    if ask.run_b is None and ask.models is None and not ask.imported:
        if len(info_a.models) != 2:
            raise ConfigError(
                f"run {info_a.run_id} has {len(info_a.models)} models: compare two runs, or "
                "name two of its models with --models A B"
            )
        wanted = (info_a.models[0], info_a.models[1])
    model_a = pick_model(info_a, wanted[0], "A")
    model_b = pick_model(info_b, wanted[1], "B")
    if ask.imported:
        folder = results_dir_of(ask.run_a, ask.results_dir)
        label_a, items_a = _imported_side(folder, info_a, items_a, ask.grader)
        label_b = f"proctor {info_a.task}"
    elif info_a.run_id == info_b.run_id and model_a == model_b:
        raise ConfigError(f"A and B are the same model of the same run: {model_a}")
    else:
        label_a, label_b = side_labels(model_a, model_b, info_a.run_id, info_b.run_id)
    comparison = compare_runs(
        items_a,
        items_b,
        Side(label_a, model_a, info_a),
        Side(label_b, model_b, info_b),
        test=ask.test,
        margin=margin,
    )
    if comparison.common_ids == 0:
        raise ProctorError("the two runs have no sample id in common: nothing to compare")
    return comparison


def compare_exit(comparison: RunComparison, *, allow_inconclusive: bool = False) -> int:
    """The exit code the comparison gives (module docstring); ProctorError on no paired item."""
    if comparison.paired.n == 0:
        raise ProctorError("no item was scored on both sides: nothing to compare")
    decision = comparison.margin
    if decision is None:
        return EXIT_CHECK_FAILED if comparison.b_significantly_worse else EXIT_OK
    if decision.verdict == "INFERIOR":
        return EXIT_CHECK_FAILED
    if decision.verdict == "INCONCLUSIVE" and not allow_inconclusive:
        return EXIT_INCONCLUSIVE
    return EXIT_OK


def _load(ref: str, results_dir: Path) -> tuple[RunInfo, list[GradedItem]]:
    folder = results_dir_of(ref, results_dir)
    if not (folder / "proctor.db").exists():
        raise ProctorError(f"no run store in {folder} (use --results-dir)")
    with RunStore.open(folder) as store:
        run_id = store.resolve(ref)
        return store.run_info(run_id), stored_items(store, run_id)


def _imported_side(
    folder: Path, info: RunInfo, items: list[GradedItem], grader: str | None
) -> tuple[str, list[GradedItem]]:
    """The imported grader's name and the run's items graded by its stored verdicts."""
    from proctor.store.imported import verdicts

    with RunStore.open(folder) as store:
        stored = verdicts(store, info.run_id)
    graders = list(dict.fromkeys(v.grader for v in stored))
    if not graders:
        raise ConfigError(f"run {info.run_id} was not imported: it has no other grader")
    name = grader or graders[0]
    if name not in graders:
        raise ConfigError(f"no grader {name!r} in run {info.run_id}: {', '.join(graders)}")
    by_key = {(v.model, v.sample_id, v.epoch): v for v in stored if v.grader == name}
    theirs = []
    for item in items:
        r = item.record
        v = by_key.get((r.model, r.sample_id, r.epoch))
        if v is None:
            continue
        score = replace(
            item.score,
            outcome=v.outcome,
            rule=name,
            explanation=v.explanation,
            extracted=v.extracted,
            normalized=None,
        )
        theirs.append(GradedItem(item.sample, r, score))
    return name, theirs


def pick_model(info: RunInfo, wanted: str | None, side: str) -> str:
    """The run's model named exactly `wanted`, or the only one containing it; the run's only
    model when `wanted` is None."""
    names = info.models
    if wanted is None:
        if len(names) == 1:
            return names[0]
        raise ConfigError(
            f"run {info.run_id} has {len(names)} models ({', '.join(names)}): "
            f"choose with --models A B"
        )
    if wanted in names:
        return wanted
    matches = [name for name in names if wanted.casefold() in name.casefold()]
    if len(matches) == 1:
        return matches[0]
    what = "matches several" if matches else "matches none"
    raise ConfigError(
        f"model {wanted!r} for {side} {what} of run {info.run_id}'s models: {', '.join(names)}"
    )


def results_dir_of(run_ref: str, default: Path) -> Path:
    """A run folder `<results>/runs/<id>` names its own results folder."""
    p = Path(run_ref)
    if p.is_dir() and p.parent.name == "runs" and (p.parent.parent / "proctor.db").exists():
        return p.parent.parent
    return default
