"""A judge validated before it is trusted: its stored verdicts on a run's answers set beside
human verdicts on the same answers (`proctor judge RUN --judge M --against LABELS.csv`).

    pointwise   the judge's 1–10 score read as pass (score >= pass_score) or fail
    pairwise    the two orders combined (`extract.judge_verdict.combine_pairwise`): a, b, tie, or
                inconsistent (the verdict moved with the answers' positions)

Reported: agreement, Cohen's kappa with its 95 % interval, the judge's base rate beside the
humans' (does it pass more?), under --pairwise its position-bias rate (pairs where the same
position won in both orders), and over --repeats its self-consistency (items whose repeated
verdicts all agree). A labelled answer the judge has no valid verdict for is counted apart and
left out of the figures, never read as a disagreement or an agreement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from proctor.datasets.labels import HumanLabel
from proctor.errors import ConfigError
from proctor.extract.judge_verdict import combine_pairwise, read_replies
from proctor.stats.agreement import Agreement, agreement, self_consistency
from proctor.stats.ppi import Corrected, corrected_accuracy
from proctor.store import RunStore
from proctor.store.run_store import Judgement

FILE = "judge_validation.json"


@dataclass(frozen=True)
class JudgeValidation:
    judge: str
    labels: str
    pairwise: bool
    pass_score: int
    labelled: int
    unjudged: int
    """Labelled answers the judge gave no verdict to (not judged, or its call failed)."""
    unscored: int
    """Labelled answers whose judge reply held no valid verdict."""
    overall: Agreement
    per_model: Mapping[str, Agreement]
    position_bias: float | None
    position_pairs: int
    repeats: int
    self_consistency: float | None
    consistency_items: int
    corrected: Mapping[str, Corrected] = field(default_factory=dict)
    """Pointwise only: per model, the judge's pass rate and the same corrected by the labels
    with prediction-powered inference (`proctor.stats.ppi`)."""

    def as_json(self) -> dict[str, Any]:
        def one(a: Agreement) -> dict[str, Any]:
            return {**asdict(a), "share": a.share}

        data = asdict(self)
        data["overall"] = one(self.overall)
        data["per_model"] = {m: one(a) for m, a in self.per_model.items()}
        return data


def _pointwise(j: Judgement, pass_score: int) -> str | None:
    reading = read_replies(j.replies, pairwise=False)
    if reading.score is None:
        return None
    return "pass" if reading.score.score >= pass_score else "fail"


def _pairwise(ab: Judgement | None, ba: Judgement | None) -> tuple[str | None, bool | None]:
    """The combined verdict, and whether the same position won both orders (None: unreadable)."""
    if ab is None or ba is None:
        return None, None
    first = read_replies(ab.replies, pairwise=True).pair
    second = read_replies(ba.replies, pairwise=True).pair
    if first is None or second is None:
        return None, None
    outcome = combine_pairwise(first, second)
    return outcome, first.winner == second.winner and first.winner in ("1", "2")


def _model_of(label: HumanLabel, models: Sequence[str], run_id: str) -> str:
    if label.model:
        return label.model
    if len(models) == 1:
        return models[0]
    raise ConfigError(
        f"line {label.line}: run {run_id} has {len(models)} sides ({', '.join(models)}): "
        "say which one each label is about in a 'model' column"
    )


def validate(
    store: RunStore,
    run_id: str,
    judge: str,
    labels: Sequence[HumanLabel],
    *,
    labels_file: str,
    pairwise: bool,
    pass_score: int = 6,
    repeats: int = 1,
    seed: int = 0,
) -> JudgeValidation:
    names = [judge, *(f"{judge}#{r}" for r in range(2, repeats + 1))]
    stored = [j for j in store.judgements(run_id) if j.judge in names]
    if not any(j.judge == judge for j in stored):
        raise ConfigError(f"judge {judge!r} has no verdict stored in run {run_id}")
    sides = sorted({j.model for j in stored if (j.ordering != "single") == pairwise})
    by_key: dict[tuple[str, str, str, int, str], Judgement] = {
        (j.judge, j.model, j.sample_id, j.epoch, j.ordering): j for j in stored
    }
    pairs: list[tuple[str, str]] = []
    per_model: dict[str, list[tuple[str, str]]] = {}
    repeated: list[list[str]] = []
    unjudged = unscored = biased = readable_pairs = 0
    labelled_keys: set[tuple[str, str, int]] = set()
    for label in labels:
        model = _model_of(label, sides, run_id)
        verdicts: list[str] = []
        for name in names:
            key = (name, model, label.sample_id, label.epoch)
            if pairwise:
                verdict, bias = _pairwise(by_key.get((*key, "ab")), by_key.get((*key, "ba")))
                if name == judge and bias is not None:
                    readable_pairs += 1
                    biased += bias
                missing = by_key.get((*key, "ab")) is None
            else:
                single = by_key.get((*key, "single"))
                missing = single is None or single.status == "call_failed"
                verdict = None if single is None else _pointwise(single, pass_score)
            if name == judge:
                if missing:
                    unjudged += 1
                elif verdict is None:
                    unscored += 1
            if verdict is not None:
                verdicts.append(verdict)
        if verdicts and not missing:
            repeated.append(verdicts)
        first = _first_verdict(by_key, judge, model, label, pairwise, pass_score)
        if first is not None:
            pairs.append((first, label.label))
            per_model.setdefault(model, []).append((first, label.label))
            labelled_keys.add((model, label.sample_id, label.epoch))
    positive = "a" if pairwise else "pass"
    consistency, consistent_n = self_consistency(repeated) if repeats > 1 else (None, 0)
    return JudgeValidation(
        judge=judge,
        labels=labels_file,
        pairwise=pairwise,
        pass_score=pass_score,
        labelled=len(labels),
        unjudged=unjudged,
        unscored=unscored,
        overall=agreement(pairs, positive, seed=seed),
        per_model={m: agreement(p, positive, seed=seed) for m, p in per_model.items()},
        position_bias=biased / readable_pairs if pairwise and readable_pairs else None,
        position_pairs=readable_pairs,
        repeats=repeats,
        self_consistency=consistency,
        consistency_items=consistent_n,
        corrected=(
            {} if pairwise else _corrected(stored, judge, per_model, labelled_keys, pass_score)
        ),
    )


def _corrected(
    stored: Sequence[Judgement],
    judge: str,
    per_model: Mapping[str, Sequence[tuple[str, str]]],
    labelled: set[tuple[str, str, int]],
    pass_score: int,
) -> dict[str, Corrected]:
    """Per model: PPI over the judge's readable verdicts on the replies nobody labelled, and
    the (judge, human) pairs on those labelled."""
    out: dict[str, Corrected] = {}
    for model, pairs in per_model.items():
        verdicts = [
            _pointwise(j, pass_score)
            for j in stored
            if j.judge == judge and j.model == model and j.ordering == "single"
            and (j.model, j.sample_id, j.epoch) not in labelled
        ]  # fmt: skip
        unlabelled = [v == "pass" for v in verdicts if v is not None]
        found = corrected_accuracy(unlabelled, [(f == "pass", h == "pass") for f, h in pairs])
        if found is not None:
            out[model] = found
    return out


def _first_verdict(
    by_key: Mapping[tuple[str, str, str, int, str], Judgement],
    judge: str,
    model: str,
    label: HumanLabel,
    pairwise: bool,
    pass_score: int,
) -> str | None:
    key = (judge, model, label.sample_id, label.epoch)
    if pairwise:
        return _pairwise(by_key.get((*key, "ab")), by_key.get((*key, "ba")))[0]
    single = by_key.get((*key, "single"))
    return None if single is None else _pointwise(single, pass_score)


def stored_kappa(run_dir: Path, judge: str | None) -> Mapping[str, Any] | None:
    """The last validation written in a run folder (of `judge`, when named), or None."""
    import json

    path = run_dir / FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    judges = data.get("judges") if isinstance(data, dict) else None
    if not isinstance(judges, dict) or not judges:
        return None
    if judge is not None:
        found = judges.get(judge)
        return found if isinstance(found, dict) else None
    if len(judges) != 1:
        raise ConfigError(
            f"{path} validates several judges ({', '.join(sorted(judges))}): choose with --judge"
        )
    only = next(iter(judges.values()))
    return only if isinstance(only, dict) else None
