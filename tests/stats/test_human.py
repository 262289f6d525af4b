"""People's verdicts as a grader, pure: which verdict counts (the newest, a skip never), the
agreement with the rules, and the grades `--grade-by human` takes from people — only for the
kinds asked, only where a person decided."""

from __future__ import annotations

from dataclasses import asdict

from proctor.stats.human import (
    counting,
    graded_by_human,
    summarize_human,
)
from proctor.stats.reviews import GivenVerdict, HumanGrade
from proctor.types import GradedItem, Record, Sample, Score, Usage


def item(sid: str, kind: str, outcome: str) -> GradedItem:
    record = Record("r", "m", sid, "ok", "reply", "stop", Usage(1, 1), 0.1, 1, "v", "en")
    sample = Sample(id=sid, input="q", target="t", category=kind)
    return GradedItem(sample, record, Score(outcome, "rule", "why"))  # type: ignore[arg-type]


def given(sid: str, verdict: str, who: str = "ann") -> GivenVerdict:
    return GivenVerdict("m", sid, 0, verdict, who, "", "2026-12-01T00:00:00+00:00")


ITEMS = [item("a", "rewrite", "correct"), item("b", "rewrite", "unscored"),
         item("c", "summary", "wrong"), item("d", "summary", "correct")]  # fmt: skip


def test_the_newest_decided_verdict_counts_and_a_skip_never_does() -> None:
    grades = counting(
        [given("a", "wrong"), given("a", "correct", "bob"), given("b", "correct"),
         given("b", "skip", "bob"), given("c", "skip")]
    )  # fmt: skip
    assert {k[1]: (g.verdict, g.reviewer) for k, g in grades.items()} == {
        "a": ("correct", "bob"), "b": ("correct", "ann"),
    }  # fmt: skip


def test_grade_by_replaces_only_the_kinds_asked_where_a_person_decided() -> None:
    grades = counting([given("a", "wrong"), given("b", "correct"), given("c", "correct")])
    out, replaced = graded_by_human(ITEMS, grades, ["rewrite"])
    assert [i.score.outcome for i in out] == ["wrong", "correct", "wrong", "correct"]
    assert [i.score.rule for i in out] == ["human", "human", "rule", "rule"]
    assert replaced == 2 and "rules: correct" in out[0].score.explanation
    everything, n = graded_by_human(ITEMS, grades, ["*"])
    assert n == 3 and everything[2].score.outcome == "correct"
    nothing, none = graded_by_human(ITEMS, grades, [])
    assert none == 0 and nothing == ITEMS


def test_agreement_with_the_rules_leaves_out_what_the_rules_left_unscored() -> None:
    grades = counting([given("a", "wrong"), given("b", "correct"), given("d", "correct")])
    summary = summarize_human(ITEMS, grades)
    assert summary is not None
    rows = {r.kind: r for r in summary.rows}
    assert (rows["all"].reviewed, rows["all"].rules_scored, rows["all"].rules_agree) == (3, 2, 1)
    assert rows["rewrite"].rules_agreement == 0.0 and rows["summary"].rules_agreement == 1.0
    assert summarize_human(ITEMS, {}) is None


def test_the_grade_that_counts_is_the_verdict_without_its_blind_flag() -> None:
    """results.json lists each counted grade field by field: a blind re-grade that counts is a
    grade like any other, and the flag of how it was given is not one of its fields."""
    blind = GivenVerdict("m", "a", 0, "wrong", "ann", "why", "2026-12-02T00:00:00+00:00", True)
    (grade,) = counting([given("a", "correct"), blind]).values()
    assert type(grade) is HumanGrade and grade == HumanGrade(
        "m", "a", 0, "wrong", "ann", "why", "2026-12-02T00:00:00+00:00"
    )
    assert "blind" not in asdict(grade) and grade.words == "wrong · ann: why"
