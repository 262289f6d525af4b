"""Pure: which stage comes next, the text of a turn, and the score of a stage.

- A stage's text fills each `{{entity.attribute}}` with the value the model gave for it, in the
  fact's unit and one spelling ("fifteen" is filled as 15); the values filled in are the turn's
  `bindings`. A placeholder whose fact is missing, unreadable or a range means the turn cannot
  be asked (the branch rules should have sent the dialogue elsewhere), which ends the dialogue.
- Branch rules are tried in order; the first whose condition holds on the fact graph wins:
  `number` (one value, hedged or not), `range`, `present`, `absent`, `unreadable`; `above`,
  `below`, `between` (a range must lie wholly on that side); `says` (a text fact that contains
  one of the words). None matching ends the dialogue.
- A stage's score is the share of its expectations met by the facts the model gave in that turn
  (a number within the expectation's relative tolerance, or the same normalised text); an
  expectation's `formula` is computed, exactly, from the turn's bindings (the values in its
  question). A reply whose expected fact is ambiguous (several readings, a bound, a unit that
  is not clear) leaves the stage unscored, with why; one with no number there, or one in
  another unit or currency, misses it; a turn that contradicts an earlier one has its score
  halved; a stage with no expectations is not scored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from proctor.datasets.exact_eval import evaluate
from proctor.dialogue.facts import Contradiction, Fact, FactGraph
from proctor.dialogue.reading import number_text
from proctor.dialogue.tree import PLACEHOLDER, Condition, DialogueTree, Expectation, Stage
from proctor.extract.normalize import normalize_text, parse_number

END = "end"


def _key(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize_text(text).lower())


def holds(cond: Condition, graph: FactGraph) -> bool:
    fact = graph.first(cond.fact)
    if cond.is_ == "absent":
        return fact is None
    if fact is None:
        return False
    if cond.is_ == "present":
        return True
    read = fact.read
    if cond.is_ == "unreadable":
        return read is None
    if read is None:
        return False
    if cond.is_ == "number":
        return read.point is not None
    if cond.is_ == "range":
        return read.is_range
    if cond.says is not None:
        return any(_key(word) in _key(read.text) for word in cond.says if _key(word))
    if read.low is None or read.high is None:
        return False
    if cond.above is not None:
        return read.low > Fraction(cond.above)
    if cond.below is not None:
        return read.high < Fraction(cond.below)
    assert cond.between is not None
    low, high = (Fraction(b) for b in cond.between)
    return low <= read.low and read.high <= high


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
            return branch.goto, branch.if_.describe()
    return END, "no branch rule matched"


def render(stage: Stage, graph: FactGraph) -> tuple[str | None, dict[str, str], str]:
    """(the turn's text, its bindings, "") or (None, {}, why it cannot be asked)."""
    bindings: dict[str, str] = {}
    problems: list[str] = []
    for key in PLACEHOLDER.findall(stage.ask):
        fact = graph.first(key)
        if fact is None:
            problems.append(f"{key}, which the model never gave")
        elif fact.read is None:
            problems.append(f"{key}, which could not be read ({fact.unreadable})")
        elif fact.read.is_range:
            problems.append(f"{key}, which the model gave as a range ({fact.read.show()})")
        else:
            bindings[key] = fact.read.show()
    if problems:
        return None, {}, f"stage {stage.id!r} needs {'; '.join(problems)}"
    text = PLACEHOLDER.sub(lambda m: bindings[m.group(1)], stage.ask)
    return text, bindings, ""


def expected_value(exp: Expectation, bindings: Mapping[str, str]) -> Fraction | str | None:
    """The expected answer: `equals` as a number (or a text), or the formula computed exactly
    from the values that were in the question; None when the formula cannot be computed."""
    if exp.formula is not None:
        missing = [k for k in PLACEHOLDER.findall(exp.formula) if k not in bindings]
        if missing:
            return None
        expression = PLACEHOLDER.sub(lambda m: f"({bindings[m.group(1)]})", exp.formula)
        try:
            return evaluate(expression)
        except (ValueError, ZeroDivisionError):
            return None
    token = parse_number(str(exp.equals))
    if token is not None and not isinstance(exp.equals, bool):
        return token.value
    return str(exp.equals)


@dataclass(frozen=True)
class StageScore:
    score: float | None
    met: tuple[str, ...]
    missed: tuple[str, ...]
    unscored: str = ""
    """Why the stage is not scored, when it is not."""


def _meets(want: Fraction | str, fact: Fact, tolerance: float) -> bool:
    if isinstance(want, str):
        return fact.read is not None and _key(fact.read.text) == _key(want)
    got = fact.number
    if got is None:
        return False
    if got == want:
        return True
    scale = max(abs(want), Fraction(1, 10**9))
    return abs(got - want) / scale <= Fraction(tolerance)


def _shown(want: Fraction | str) -> str:
    return want if isinstance(want, str) else number_text(want)


def score_stage(
    stage: Stage,
    facts: Sequence[Fact],
    contradictions: Sequence[Contradiction],
    bindings: Mapping[str, str] | None = None,
) -> StageScore:
    if not stage.expect:
        return StageScore(None, (), ())
    met: list[str] = []
    missed: list[str] = []
    for exp in stage.expect:
        want = expected_value(exp, bindings or {})
        if want is None:
            return StageScore(
                None,
                (),
                (),
                f"{exp.fact}: the formula {exp.formula!r} cannot be "
                f"computed from {dict(bindings or {})}",
            )
        got = next((f for f in facts if f.key == exp.fact), None)
        if got is not None and got.read is None and got.unreadable_kind == "ambiguous":
            return StageScore(None, (), (), f"{exp.fact}: {got.unreadable}")
        if got is not None and got.read is None:
            missed.append(f"{exp.fact}: expected {_shown(want)}, {got.unreadable}")
            continue
        if got is not None and got.read is not None and got.read.is_range:
            return StageScore(
                None,
                (),
                (),
                f"{exp.fact}: the reply gives a range ({got.read.show()}), not a value",
            )
        if got is not None and _meets(want, got, exp.tolerance):
            hedge = " (hedged)" if got.read is not None and got.read.hedged else ""
            met.append(f"{exp.fact} = {got.value}{hedge}")
        else:
            said = f"said {got.value!r}" if got else "gave no value"
            missed.append(f"{exp.fact}: expected {_shown(want)}, {said}")
    score = len(met) / len(stage.expect)
    if contradictions:
        score /= 2
        missed.append("score halved: this turn contradicts an earlier one")
    return StageScore(score, tuple(met), tuple(missed))
