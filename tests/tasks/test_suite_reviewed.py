"""The reviewed suite cases (tests/tasks/cases/reviewed.jsonl): every reply graded as the
careful reviewer graded it, never a false "correct", every "unscored" with its reason — first
case by case, then all at once through `proctor run --suite` against a scripted model, reading
the samples.csv the run writes."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.providers.fake import FakeProvider, Reply
from proctor.runs import ask as runner
from proctor.types import Prompt

from .reviewed import CASE_COLUMNS, grade_table, rows

ROWS = rows()
GRADED = {g.row["id"]: g for g in grade_table(ROWS)}
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}


def test_the_table_covers_every_kind_in_both_languages_and_both_directions() -> None:
    assert len(ROWS) >= 150
    by = Counter((r["kind"], r["lang"], r["verdict"] == "correct") for r in ROWS)
    for kind in ("extraction", "summary", "rewrite", "refusal"):
        for lang in ("zh", "en"):
            assert by[(kind, lang, True)] >= 2 and by[(kind, lang, False)] >= 2, (kind, lang)
    assert all(r["why"] and r["class"] for r in ROWS)


_OPEN = pytest.mark.xfail(strict=True, reason="an open disagreement, on the safe side")


@pytest.mark.parametrize(
    "case_id", [pytest.param(c, marks=_OPEN) if "open" in g.row else c for c, g in GRADED.items()]
)
def test_the_rules_agree_with_the_reviewer(case_id: str) -> None:
    graded = GRADED[case_id]
    score, row = graded.score, graded.row
    assert score.outcome == row["verdict"], f"{row['why']} — rules: {score.explanation}"
    assert score.explanation
    assert row.get("explain", "") in score.explanation
    if score.outcome == "unscored":
        assert "cannot decide" in score.explanation or "guesses" in score.explanation


def test_no_false_correct_on_the_table() -> None:
    assert [g.row["id"] for g in GRADED.values() if g.false_correct] == []


def test_open_disagreements_are_few_and_said_why() -> None:
    """Rows marked "open" are cases the rules still get wrong, each on the safe side (never a
    false correct) and each with the reason; the rest of the table agrees."""
    open_rows = [g for g in GRADED.values() if "open" in g.row]
    assert len(open_rows) <= 5 and all(g.row["open"] for g in open_rows)
    assert len(GRADED) - len(open_rows) >= 150


def _marker(i: int) -> str:
    """A tag without digits or capitals (so it adds no number and no name to a question)."""
    letters = ""
    while True:
        i, r = divmod(i, 26)
        letters = chr(ord("a") + r) + letters
        if i == 0:
            return f" (case q{letters})"


def test_the_table_through_proctor_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case's question gets a tag so that the scripted model can tell apart the cases that
    share a material and a question."""
    suite = tmp_path / "reviewed.jsonl"
    reply_of: dict[str, Reply] = {}
    with suite.open("w", encoding="utf-8") as f:
        for i, row in enumerate(ROWS):
            case = {k: row[k] for k in CASE_COLUMNS if k in row}
            case["question"] += _marker(i)
            reply_of[_marker(i)] = (row["reply"], row["finish"])
            f.write(json.dumps(case, ensure_ascii=False) + "\n")

    def script(prompt: Prompt) -> Reply:
        text = prompt.messages[-1].content
        return reply_of[text[text.rindex(" (case q") :]]

    monkeypatch.setattr(runner, "make_provider", lambda m, key=None: FakeProvider(m, script))
    by_id = {r["id"]: r for r in ROWS}
    results = tmp_path / "results"
    out = CliRunner().invoke(
        app, ["run", "--suite", str(suite), "-m", "fake/reviewer", "-r", str(results)], env=ENV
    )
    assert out.exit_code == 0, out.output
    (run_dir,) = (results / "runs").iterdir()
    with (run_dir / "samples.csv").open(encoding="utf-8") as f:
        got = {r["sample_id"]: r["outcome"] for r in csv.DictReader(f)}
    assert {k: v for k, v in got.items() if "open" not in by_id[k]} == {
        r["id"]: r["verdict"] for r in ROWS if "open" not in r
    }
