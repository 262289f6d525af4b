"""People's verdicts as a grader beside the rules: per reply, the verdict that counts now; per
model and kind, how many replies people reviewed and how often they agree with the rules; and,
when a report counts a kind by people's verdicts (`--grade-by human`), the grades it counts.

The verdict that counts for a reply is the newest one given on it by anyone ("skip" says the
reviewer would not decide: it never counts, and an older verdict of someone else still does).
Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from proctor.stats.drift import Drift, drift
from proctor.stats.reviews import GivenVerdict, HumanGrade
from proctor.types import GradedItem, Score

if TYPE_CHECKING:
    from proctor.stats.model_parts import Items

ALL_KINDS = "*"
"""In `grade_by`: every kind."""

HUMAN_RULE = "human"
"""The rule name of a grade taken from a person's verdict."""


@dataclass(frozen=True)
class HumanRow:
    model: str
    kind: str
    """"all", or one kind (category)."""
    reviewed: int
    correct: int
    wrong: int
    rules_scored: int
    """Reviewed replies the rules graded correct or wrong (not unscored)."""
    rules_agree: int
    """Of those, how many the rules graded as the person did."""

    @property
    def rules_agreement(self) -> float | None:
        return self.rules_agree / self.rules_scored if self.rules_scored else None


@dataclass(frozen=True)
class HumanSummary:
    """People's verdicts on a run, beside the rules' grades."""

    grades: Mapping[tuple[str, str, int], HumanGrade]
    """(model, sample id, epoch) → the verdict that counts."""
    rows: tuple[HumanRow, ...]
    grade_by: tuple[str, ...]
    """The kinds the report counts by people's verdicts where they exist (`ALL_KINDS`: all)."""
    counted: int
    """Grades the report took from people instead of the rules."""
    drift: Drift | None = None
    """Reviewers' agreement with their own blind re-grades and with each other; None: none."""


def counting(verdicts: Sequence[GivenVerdict]) -> dict[tuple[str, str, int], HumanGrade]:
    """(model, sample id, epoch) → the newest non-skip verdict on the reply."""
    out: dict[tuple[str, str, int], HumanGrade] = {}
    for v in verdicts:  # stored order: a later verdict supersedes
        if v.verdict == "skip":
            continue
        out[v.key] = HumanGrade(
            v.model, v.sample_id, v.epoch, v.verdict, v.reviewer, v.note, v.reviewed_at
        )
    return out


def _key(item: GradedItem) -> tuple[str, str, int]:
    return (item.record.model, item.sample.id, item.record.epoch)


def counts_by_human(kind: str, grade_by: Sequence[str]) -> bool:
    return ALL_KINDS in grade_by or kind in grade_by


def graded_by_human(
    items: Iterable[GradedItem],
    grades: Mapping[tuple[str, str, int], HumanGrade],
    grade_by: Sequence[str],
) -> tuple[list[GradedItem], int]:
    """The items with the grade of each reply of a `grade_by` kind a person gave a verdict on
    replaced by that verdict (rule "human"); and how many were replaced."""
    out: list[GradedItem] = []
    replaced = 0
    for item in items:
        grade = grades.get(_key(item))
        if grade is None or not counts_by_human(item.sample.category, grade_by):
            out.append(item)
            continue
        said = f"{grade.reviewer}: {grade.note}" if grade.note else grade.reviewer
        score = Score(
            outcome="correct" if grade.verdict == "correct" else "wrong",
            rule=HUMAN_RULE,
            explanation=f"{said} (rules: {item.score.outcome}, {item.score.explanation})",
            extracted=item.score.extracted,
            normalized=item.score.normalized,
            format_ok=item.score.format_ok,
        )
        out.append(replace(item, score=score))
        replaced += 1
    return out, replaced


def summarize_human(
    items: Iterable[GradedItem],
    grades: Mapping[tuple[str, str, int], HumanGrade],
    grade_by: Sequence[str] = (),
    counted: int = 0,
) -> HumanSummary | None:
    """Per model, over all kinds and per kind: replies reviewed, their verdicts, and how often
    the rules' grade (of `items`: the rules', before any `graded_by_human`) agrees. None when
    nobody reviewed any reply and no kind is counted by people."""
    if not grades and not grade_by:
        return None
    groups: dict[tuple[str, str], list[tuple[GradedItem, HumanGrade]]] = {}
    for item in items:
        grade = grades.get(_key(item))
        if grade is None:
            continue
        groups.setdefault((item.record.model, "all"), []).append((item, grade))
        if item.sample.category:
            groups.setdefault((item.record.model, item.sample.category), []).append((item, grade))
    rows = []
    for (model, kind), group in groups.items():
        scored = [(i, g) for i, g in group if i.score.outcome in ("correct", "wrong")]
        rows.append(
            HumanRow(
                model=model,
                kind=kind,
                reviewed=len(group),
                correct=sum(g.verdict == "correct" for _, g in group),
                wrong=sum(g.verdict == "wrong" for _, g in group),
                rules_scored=len(scored),
                rules_agree=sum(i.score.outcome == g.verdict for i, g in scored),
            )
        )
    return HumanSummary(dict(grades), tuple(rows), tuple(grade_by), counted)


def by_people(
    items: Items, verdicts: Sequence[GivenVerdict], grade_by_human: Sequence[str]
) -> tuple[Items, HumanSummary | None]:
    """People's verdicts summarized beside the rules' grades; the items with the grades of the
    kinds counted by people replaced by theirs (a run people reviewed: held)."""
    grades = counting(verdicts)
    human = summarize_human(items, grades, grade_by_human)
    if human is not None:
        agreements = drift(verdicts, {i.sample.id: i.sample.category for i in items})
        human = replace(human, drift=None if agreements.empty else agreements)
    if human is not None and grade_by_human:
        items, counted = graded_by_human(items, grades, grade_by_human)
        human = replace(human, counted=counted)
    return items, human
