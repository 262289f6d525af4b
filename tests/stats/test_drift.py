"""Drift and agreement of people's verdicts, pure: a blind re-grade is set beside the same
reviewer's latest earlier verdict (a skip on either side is no pair), per kind and per day;
two reviewers are compared on what both decided; kappa is the one of stats.agreement."""

from __future__ import annotations

import pytest

from proctor.stats.agreement import cohen_kappa
from proctor.stats.drift import drift, self_pairs
from proctor.stats.reviews import GivenVerdict


def v(
    sid: str, verdict: str, who: str = "ann", blind: bool = False, day: str = "01"
) -> GivenVerdict:
    return GivenVerdict("m", sid, 0, verdict, who, "", f"2026-12-{day}T09:00:00+00:00", blind)


KINDS = {"a": "rewrite", "b": "rewrite", "c": "summary", "d": "summary", "e": "summary"}


def test_a_blind_regrade_meets_the_latest_earlier_verdict_and_skips_make_no_pair() -> None:
    verdicts = [
        v("a", "wrong"), v("a", "correct"),  # ann changed her mind before the re-grade
        v("b", "correct"), v("c", "skip"), v("d", "correct"),
        v("a", "correct", blind=True, day="05"), v("b", "wrong", blind=True, day="05"),
        v("c", "correct", blind=True, day="05"),  # earlier a skip: no pair
        v("e", "wrong", blind=True, day="05"),  # never graded before: no pair
        v("d", "skip", blind=True, day="06"),  # a skip now: no pair
    ]  # fmt: skip
    pairs = self_pairs(verdicts, KINDS)["ann"]
    assert [(a, b, k) for a, b, k, _ in pairs] == [
        ("correct", "correct", "rewrite"), ("correct", "wrong", "rewrite"),
    ]  # fmt: skip


def test_self_agreement_and_kappa_per_kind_and_inter_rater() -> None:
    first = ["correct", "wrong", "correct", "correct", "wrong"]
    again = ["correct", "wrong", "wrong", "correct", "wrong"]
    sids = ["a", "b", "c", "d", "e"]
    verdicts = [v(s, x) for s, x in zip(sids, first, strict=True)]
    verdicts += [v(s, x, blind=True, day="09") for s, x in zip(sids, again, strict=True)]
    verdicts += [v(s, "correct", who="bob") for s in sids]
    result = drift(verdicts, KINDS)
    rows = {(r.who, r.scope): r.result for r in result.self_agreement}
    overall = rows[("ann", "all")]
    assert (overall.agree, overall.n) == (4, 5)
    assert overall.kappa == pytest.approx(cohen_kappa(first, again))
    assert overall.kappa_low is not None and overall.kappa_high is not None
    assert overall.kappa_low <= overall.kappa <= overall.kappa_high
    assert (rows[("ann", "kind summary")].agree, rows[("ann", "kind summary")].n) == (2, 3)
    assert not any(scope.startswith("day") for _, scope in rows)  # one day of re-grades
    (inter,) = result.inter_rater
    assert inter.who == "ann × bob" and (inter.result.agree, inter.result.n) == (3, 5)
