"""Evidence-aware requirements: the interval's bound decides, never the point estimate; too
little evidence is INCONCLUSIVE with the items that would decide it."""

from __future__ import annotations

import pytest

from proctor.errors import ConfigError
from proctor.stats.evidence import count_bounds, decide, items_to_decide
from proctor.stats.gates import evaluate, parse_requirement
from proctor.types import GradedItem, Record, Sample, Score, Usage


def answers(correct: int, wrong: int, category: str = "integer") -> list[GradedItem]:
    out = []
    for i, outcome in enumerate(["correct"] * correct + ["wrong"] * wrong):
        sample = Sample(f"s{i}", "q", "t", category=category, answer_type="integer")
        record = Record("r", "m", sample.id, "ok", "x", "stop", Usage(), 0.1, 1, "t", "en")
        out.append(GradedItem(sample, record, Score(outcome, "rule", "why", "1", "1", True)))  # type: ignore[arg-type]
    return out


def check(requirement: str, items: list[GradedItem], **kw: object) -> tuple[str, str]:
    (row,) = evaluate([parse_requirement(requirement)], items, ["m"], **kw)  # type: ignore[arg-type]
    return row.result, row.note


# ---- must NOT pass -------------------------------------------------------------------------


def test_one_of_two_does_not_pass_a_half_threshold() -> None:
    """The issue's case: category=integer:accuracy>=0.5 on n = 2, 1 right."""
    result, note = check("category=integer:accuracy>=0.5", answers(1, 1))
    assert result == "INCONCLUSIVE"
    assert "straddles the threshold" in note
    assert "more items at this value do not decide it" in note  # 50 % against 50 %


def test_a_kappa_whose_interval_reaches_down_to_014_does_not_pass() -> None:
    """The issue's case: κ 0.625 with interval 0.14–1.00 against judge_kappa>=0.6."""
    kappa = {"": (0.625, 20, (0.14, 1.0))}
    (row,) = evaluate([parse_requirement("judge_kappa>=0.6")], [], ["m"], kappa=kappa)
    assert row.result == "INCONCLUSIVE" and not row.passed
    assert "0.14–1.00" in row.note


def test_a_kappa_without_an_interval_is_no_evidence() -> None:
    (row,) = evaluate(
        [parse_requirement("judge_kappa>=0.6")], [], ["m"], kappa={"": (0.9, 3, None)}
    )
    assert row.result == "INCONCLUSIVE"


def test_95_of_100_does_not_prove_90_percent() -> None:
    result, note = check("accuracy>=0.9", answers(95, 5))
    assert result == "INCONCLUSIVE"
    needed = items_to_decide(0.95, count_bounds(95, 100), 0.9)
    assert needed is not None and 100 < needed < 200
    assert f"about {needed:,} items would decide it" in note


# ---- what passes and fails ----------------------------------------------------------------


def test_190_of_200_proves_90_percent() -> None:
    assert check("accuracy>=0.9", answers(190, 10))[0] == "pass"


def test_a_clear_shortfall_fails() -> None:
    assert check("accuracy>=0.9", answers(50, 50))[0] == "FAIL"


def test_the_upper_bound_decides_an_at_most_requirement() -> None:
    assert check("accuracy<=0.1", answers(0, 100))[0] == "pass"
    assert check("accuracy<=0.1", answers(2, 18))[0] == "INCONCLUSIVE"


def test_the_point_rule_is_available_by_name_and_says_so() -> None:
    result, note = check("rule=point,category=integer:accuracy>=0.5", answers(1, 1))
    assert result == "pass"
    assert "point-estimate rule" in note
    result, _ = check("accuracy>=0.5", answers(1, 1), rule="point")
    assert result == "pass"


def test_a_bad_rule_is_refused() -> None:
    with pytest.raises(ConfigError, match="rule=bound"):
        parse_requirement("rule=median:accuracy>=0.5")


def test_counts_and_equality_have_no_interval() -> None:
    assert check("n>=2", answers(1, 1))[0] == "pass"
    assert check("accuracy==0.5", answers(1, 1))[0] == "pass"


@pytest.mark.parametrize(
    ("op", "low", "high", "result"),
    [(">=", 0.85, 0.95, "inconclusive"), (">=", 0.91, 0.95, "pass"), (">=", 0.7, 0.89, "fail"),
     ("<=", 0.05, 0.2, "inconclusive"), ("<=", 0.01, 0.08, "pass"), ("<", 0.2, 0.3, "fail")],
)  # fmt: skip
def test_decide_reads_the_right_end(op: str, low: float, high: float, result: str) -> None:
    from proctor.stats.evidence import Bounds

    assert decide(op, (low + high) / 2, Bounds(low, high, "share"), 0.9 if ">" in op else 0.1,
                  "bound") == result  # fmt: skip


def test_repeats_of_one_case_are_one_case_of_evidence() -> None:
    """Ten replies to the same question, all right, prove no more than one case does."""
    from proctor.stats.evidence import share_bounds

    bounds = share_bounds([True] * 10, ["same"] * 10)
    assert bounds.low == pytest.approx(count_bounds(1, 1).low)
    assert share_bounds([True] * 10, [f"c{i}" for i in range(10)]).low > bounds.low
