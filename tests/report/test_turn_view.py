"""The turn view of a dialogue's or workflow's page (`report/html/turn_view.py`) from a stored
grade: a part the grade lacks shows as missing ("?", "no budget"), never as 0 or as met."""

from __future__ import annotations

from proctor.report.html.turn_view import budget_line, turn_transcripts
from proctor.stats.turn_scores import TurnScores
from proctor.types import RunInfo
from support.run_stats import statistics


def stats_with(scores: TurnScores) -> object:
    info = RunInfo("r", scores.kind, (scores.model,), "h", 1, "g", scores.kind, "en", "2026-12-02")
    return statistics(info, [], {}, turns=[scores])


def test_budget_line_against_the_limits_and_without_them() -> None:
    spent = {"tokens": 1234, "tool_calls": 3, "wall_s": 12.34, "stopped_by": "tokens"}
    limits = {"max_tokens": 1000, "max_tool_calls": 6, "max_wall_s": 120}
    assert budget_line({**spent, "budget": limits}) == (
        "budget: 1,234 of 1,000 tokens · 3 of 6 tool calls · 12.3 of 120 s wall time"
        " · stopped by its tokens limit"
    )
    old = budget_line({"tool_calls": 3})  # a grade stored before budgets were kept
    assert old.startswith("spent (no budget in this grade") and "? tokens" in old


def test_a_dialogue_turn_missing_its_parts_is_not_shown_as_passed() -> None:
    scores = TurnScores("dialogue", "m", "complete", "", (), (), (),
                        detail={"turns": [{"turn": 1, "stage": "facts"}, "junk"]})  # fmt: skip
    (view,) = turn_transcripts(stats_with(scores))  # type: ignore[arg-type]
    first, junk = view["turns"]
    assert first["score"] == "—" and first["checks"] == [] and first["facts"] == []
    assert first["reply"] == "" and "the last turn" in first["meta"]
    assert junk["title"] == "turn ? · ?"
