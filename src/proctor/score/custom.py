"""Scorers a user writes: one signature and a one-sentence rule, whether the scorer lives in a
task file, a test suite or a package's entry point (group "proctor.scorers", found by name in
`proctor.tasks.custom`: grading stays pure and imports no plugin).

A scorer is a function of one answered reply (the stored `Record`: its text, finish reason,
usage) and its `Sample`, returning True (correct), False (wrong) or a full `Score`. It never
sees a failed call: that is `call_failed` before any scorer runs, and never a wrong answer. It
is pure: the same record and sample always get the same grade, so a stored run can be re-graded
offline. What it raises is that reply's `unscored` grade with the error, not a crash of the run.

    @scorer(rule="The reply's last line, trimmed and case-folded, equals the target.")
    def last_line(reply: Record, sample: Sample) -> bool:
        lines = reply.text.strip().splitlines()
        return bool(lines) and lines[-1].strip().casefold() == sample.target.casefold()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from proctor.score.failed import CALL_FAILED_RULE, call_failed_score
from proctor.types import Record, Sample, Score

ScoreFunction = Callable[[Record, Sample], "Score | bool"]
"""(an answered record, its sample) → True, False or a Score."""

SCORER_ERROR_RULE = "The scorer raised an error on this reply, so it is not scored."
TRUNCATED_RULE = "The reply hit max_tokens and the scorer did not find it correct."


@dataclass(frozen=True)
class Scorer:
    """A named rule: `check` decides each answered reply; `rule` says how, in one sentence."""

    name: str
    rule: str
    check: ScoreFunction
    rules: Mapping[str, str] = field(default_factory=dict)
    """Further rule names a returned Score may carry, with their sentences."""

    def __post_init__(self) -> None:
        if not self.name.strip() or "+" in self.name:
            raise ValueError(f"a scorer needs a name without '+', got {self.name!r}")
        if not _one_sentence(self.rule):
            raise ValueError(
                f"scorer {self.name!r} needs its rule: one sentence that says when a reply is "
                f"correct (got {self.rule!r})"
            )

    def all_rules(self) -> dict[str, str]:
        """Every rule name its grades can carry → its sentence (what a report prints)."""
        return {
            self.name: self.rule,
            **self.rules,
            "call_failed": CALL_FAILED_RULE,
            "truncated": TRUNCATED_RULE,
            "scorer_error": SCORER_ERROR_RULE,
        }

    def __call__(self, record: Record, sample: Sample) -> Score:
        """The grade of a stored record (failed calls included) by this rule."""
        if record.status == "call_failed":
            return call_failed_score(record.error)
        try:
            verdict = self.check(record, sample)
        # The scorer is the user's code: whatever it raises is this reply's reason for being
        # unscored (visible in the outcome counts), never a report that fails halfway.
        except Exception as e:
            message = " ".join(str(e).split())[:300]
            return Score(
                "unscored", "scorer_error", f"{SCORER_ERROR_RULE} {type(e).__name__}: {message}"
            )
        if isinstance(verdict, Score):
            return verdict
        if not isinstance(verdict, bool):
            return Score(
                "unscored", "scorer_error",
                f"{SCORER_ERROR_RULE} It returned {type(verdict).__name__}, not True, False "
                "or a Score.",
            )  # fmt: skip
        if verdict:
            return Score("correct", self.name, self.rule, format_ok=True)
        if record.finish_reason == "length":
            return Score("truncated", "truncated", TRUNCATED_RULE)
        return Score("wrong", self.name, self.rule)


def scorer(
    rule: str, *, name: str | None = None, rules: Mapping[str, str] | None = None
) -> Callable[[ScoreFunction], Scorer]:
    """Make a function `(record, sample) -> bool | Score` a Scorer with its one-sentence rule."""

    def wrap(check: ScoreFunction) -> Scorer:
        called = name or str(getattr(check, "__name__", "") or "scorer")
        return Scorer(called, rule, check, dict(rules or {}))

    return wrap


def _one_sentence(rule: str) -> bool:
    text = rule.strip()
    return bool(text) and len(text) <= 400 and "\n\n" not in text
