"""Repeated sampling read from stored replies (`Record.epoch` 0..N−1 when run with --samples N):
stability, majority vote and pass@k, each kept apart from plain accuracy.

- Answer of a reply: its normalised number (or extracted text) when graded correct or wrong, with
  " [format]" added for a format-only miss; a reply without an answer (no_answer, truncated,
  violation, refused) has none. Failed calls and unscored replies are left out everywhere.
- Stability: share of items with at least two scored replies whose replies all read the same —
  the same answer, or the same kind of non-answer. A model can be stable and wrong.
- Majority vote: per item the answer given most often (non-answers ignored, ties to the answer
  seen first); the item counts as correct when that answer was graded correct. Share of items.
- pass@k: the unbiased estimator per item (n scored replies, c correct), averaged over the items
  with n ≥ k; interval by a seeded percentile bootstrap over items.
- Accuracy over all replies: the share of scored replies that are correct, with a Wilson interval
  on the cluster-adjusted effective sample size (replies to one item are not independent).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from proctor.stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_interval
from proctor.stats.intervals import clustered_wilson_interval, wilson_interval
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.passk import majority_vote, pass_at_k
from proctor.types import GradedItem, Score

PASS_KS: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100)
"""The k of pass@k reported by default (those not above the number of replies per item)."""


@dataclass(frozen=True)
class Estimate:
    """A share with its interval, over `n` units (items, or replies)."""

    value: float | None
    low: float | None
    high: float | None
    n: int


NOTHING = Estimate(None, None, None, 0)


@dataclass(frozen=True)
class RepeatMetrics:
    model: str
    replies_per_item: int
    """The most scored replies any one item has."""
    n_items: int
    """Items with at least one scored reply."""
    accuracy: Estimate
    """Over all scored replies; interval clustered by item."""
    stability: Estimate
    majority: Estimate
    pass_at: dict[int, Estimate]


def answer_key(score: Score) -> str | None:
    """What a reply answered, as compared across repeats; None when it gave no answer."""
    if score.outcome not in ("correct", "wrong"):
        return None
    value = score.normalized if score.normalized is not None else score.extracted
    if value is None:
        return None
    return value + " [format]" if "format_only" in score.rule else value


def _reading(score: Score) -> str:
    key = answer_key(score)
    return f"answer:{key}" if key is not None else f"outcome:{score.outcome}"


def repeat_metrics(
    items: Iterable[GradedItem],
    ks: Sequence[int] | None = None,
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, RepeatMetrics]:
    """Per model (in order of first appearance): see the module docstring.

    `ks` defaults to those of `PASS_KS` up to the number of replies per item.
    """
    grouped: dict[str, dict[str, list[GradedItem]]] = {}
    for item in items:
        per_item = grouped.setdefault(item.record.model, {})
        replies = per_item.setdefault(item.sample.id, [])
        if item.score.outcome not in NOT_SCORED:
            replies.append(item)
    return {
        model: _model_repeats(model, per_item, ks, confidence, resamples, seed)
        for model, per_item in grouped.items()
    }


def _share(successes: int, n: int, confidence: float) -> Estimate:
    if n == 0:
        return NOTHING
    low, high = wilson_interval(successes, n, confidence)
    return Estimate(successes / n, low, high, n)


def _model_repeats(
    model: str,
    per_item: dict[str, list[GradedItem]],
    ks: Sequence[int] | None,
    confidence: float,
    resamples: int,
    seed: int,
) -> RepeatMetrics:
    answered = {sid: replies for sid, replies in per_item.items() if replies}
    most = max((len(replies) for replies in answered.values()), default=0)
    chosen = [k for k in (ks if ks is not None else PASS_KS) if 1 <= k <= most]
    if ks is None and most > 1 and most not in chosen:
        chosen.append(most)

    values: list[float] = []
    clusters: list[str] = []
    stable = repeated = majority_right = 0
    for sid, replies in answered.items():
        for reply in replies:
            values.append(1.0 if reply.score.outcome == "correct" else 0.0)
            clusters.append(sid)
        if len(replies) >= 2:
            repeated += 1
            stable += len({_reading(reply.score) for reply in replies}) == 1
        keys = [answer_key(reply.score) for reply in replies]
        vote = majority_vote(keys)
        majority_right += any(
            key == vote and reply.score.outcome == "correct"
            for key, reply in zip(keys, replies, strict=True)
            if vote is not None
        )

    return RepeatMetrics(
        model=model,
        replies_per_item=most,
        n_items=len(answered),
        accuracy=_accuracy(values, clusters, confidence),
        stability=_share(stable, repeated, confidence),
        majority=_share(majority_right, len(answered), confidence),
        pass_at={
            k: _pass_at(list(answered.values()), k, confidence, resamples, seed) for k in chosen
        },
    )


def _accuracy(values: list[float], clusters: list[str], confidence: float) -> Estimate:
    if not values:
        return NOTHING
    low, high = clustered_wilson_interval(values, clusters, confidence)
    return Estimate(sum(values) / len(values), low, high, len(values))


def _pass_at(
    replies: list[list[GradedItem]], k: int, confidence: float, resamples: int, seed: int
) -> Estimate:
    per_item = [
        pass_at_k(len(r), sum(1 for x in r if x.score.outcome == "correct"), k)
        for r in replies
        if len(r) >= k
    ]
    if not per_item:
        return NOTHING
    interval = bootstrap_interval(per_item, confidence=confidence, resamples=resamples, seed=seed)
    return Estimate(interval.estimate, interval.low, interval.high, len(per_item))
