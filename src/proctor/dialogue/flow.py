"""Pure: which stage comes next, the text of a turn, and the score of a stage.

- A stage's text fills each `{{entity.attribute}}` with the value the model first gave for it;
  a placeholder with no fact yet means the turn cannot be asked (the branch rules should have
  sent the dialogue elsewhere), which ends the dialogue with that reason.
- Branch rules are tried in order; the first whose condition holds on the fact graph wins
  (`number`: the fact exists and is a number; `present`; `absent`); none matching ends the
  dialogue.
- A stage's score is the share of its expectations met by the facts the model gave in that
  turn (a number within the expectation's relative tolerance, or the same normalised text),
  halved when that turn contradicted an earlier one; a stage with no expectations is not scored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from proctor.dialogue.facts import Contradiction, Fact, FactGraph
from proctor.dialogue.tree import PLACEHOLDER, Condition, DialogueTree, Expectation, Stage
from proctor.extract.normalize import normalize_text, parse_number

END = "end"


def holds(cond: Condition, graph: FactGraph) -> bool:
    fact = graph.first(cond.fact)
    if cond.is_ == "absent":
        return fact is None
    if cond.is_ == "present":
        return fact is not None
    return fact is not None and fact.number is not None


def next_stage(tree: DialogueTree, stage: Stage, graph: FactGraph) -> tuple[str, str]:
    """(next stage id or "end", why) after `stage`."""
    if stage.next is None:
        after = tree.following(stage.id)
        return (after, "next in order") if after else (END, "last stage")
    if isinstance(stage.next, str):
        return stage.next, "fixed"
    for branch in stage.next:
        if branch.if_ is None:
            return branch.goto, "otherwise"
        if holds(branch.if_, graph):
            return branch.goto, f"{branch.if_.fact} is {branch.if_.is_}"
    return END, "no branch rule matched"


def render(stage: Stage, graph: FactGraph) -> tuple[str | None, str]:
    """(the turn's text, "") or (None, why it cannot be asked)."""
    missing = [k for k in PLACEHOLDER.findall(stage.ask) if graph.first(k) is None]
    if missing:
        return None, f"stage {stage.id!r} needs {', '.join(missing)}, which the model never gave"

    def fill(m: re.Match[str]) -> str:
        fact = graph.first(m.group(1))
        return fact.value if fact else m.group()

    return PLACEHOLDER.sub(fill, stage.ask), ""


@dataclass(frozen=True)
class StageScore:
    score: float | None
    met: tuple[str, ...]
    missed: tuple[str, ...]


def _meets(exp: Expectation, fact: Fact) -> bool:
    if isinstance(exp.equals, float | int) or parse_number(str(exp.equals)) is not None:
        want = parse_number(str(exp.equals))
        if fact.number is None or want is None:
            return False
        if fact.number == want.value:
            return True
        scale = max(abs(want.value), Fraction(1, 10**9))
        return float(abs(fact.number - want.value) / scale) <= exp.tolerance
    return _key(fact.value) == _key(str(exp.equals))


def _key(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize_text(text).lower())


def score_stage(
    stage: Stage, facts: Sequence[Fact], contradictions: Sequence[Contradiction]
) -> StageScore:
    if not stage.expect:
        return StageScore(None, (), ())
    met: list[str] = []
    missed: list[str] = []
    for exp in stage.expect:
        got = next((f for f in facts if f.key == exp.fact), None)
        if got is not None and _meets(exp, got):
            met.append(f"{exp.fact} = {got.value}")
        else:
            said = f"said {got.value!r}" if got else "gave no value"
            missed.append(f"{exp.fact}: expected {exp.equals!r}, {said}")
    score = len(met) / len(stage.expect)
    if contradictions:
        score /= 2
        missed.append("score halved: this turn contradicts an earlier one")
    return StageScore(score, tuple(met), tuple(missed))
