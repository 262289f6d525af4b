"""Cohen's kappa (stats/agreement.py) against published cases (cases/kappa_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.stats.agreement import agreement, cohen_kappa, kappa_interval, self_consistency

ROWS = json.loads((Path(__file__).parent / "cases" / "kappa_cases.json").read_text())["rows"]


def expand(counts: list[list[object]]) -> tuple[list[str], list[str]]:
    judge: list[str] = []
    human: list[str] = []
    for j, h, n in counts:
        judge += [str(j)] * int(str(n))
        human += [str(h)] * int(str(n))
    return judge, human


@pytest.mark.parametrize("row", ROWS, ids=[r["source"][:40] for r in ROWS])
def test_kappa_table(row: dict[str, object]) -> None:
    judge, human = expand(row["counts"])  # type: ignore[arg-type]
    got = cohen_kappa(judge, human)
    if row["kappa"] is None:
        assert got is None and kappa_interval(judge, human) is None
        return
    assert got is not None
    assert round(got, int(row.get("places", 6))) == pytest.approx(row["kappa"])  # type: ignore[call-overload]


def test_interval_is_seeded_and_holds_the_estimate() -> None:
    judge, human = expand(ROWS[0]["counts"])
    a = kappa_interval(judge, human, seed=3)
    assert a == kappa_interval(judge, human, seed=3)
    assert a is not None and a[0] < 0.4 < a[1]
    summary = agreement(list(zip(judge, human, strict=True)), "yes")
    assert summary.share == 0.7 and summary.judge_rate == 0.5 and summary.human_rate == 0.6


def test_self_consistency_counts_items_judged_twice_or_more() -> None:
    assert self_consistency([["pass", "pass"], ["pass", "fail"], ["fail"]]) == (0.5, 2)
    assert self_consistency([["pass"]]) == (None, 0)
