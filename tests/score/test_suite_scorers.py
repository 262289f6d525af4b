"""The four suite scorers, one table each (tests/score/cases/*.json): every rule, and the nasty
cases — JSON in a code fence, prose after JSON, a number with a unit, the right value with a
conflicting one, a Chinese sentence of exactly 25 characters, a refusal that invents a number.
Every bug found becomes a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.extract.claims import stance
from proctor.extract.phrases import find_phrase
from proctor.extract.sentences import split_sentences, text_length
from proctor.score.extraction import JsonFieldsMatch
from proctor.score.refusal import REFUSAL_PHRASES, RefusalCheck
from proctor.score.rewrite import RewriteConstraints
from proctor.score.summary import RequiredPoints
from proctor.types import OUTCOMES, Score

CASES = Path(__file__).parent / "cases"


def _table(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    return rows


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r.get("name", r.get("text", ""))) for r in rows]


def _check(score: Score, row: dict[str, Any]) -> None:
    assert (score.outcome, score.rule) == (row["outcome"], row["rule"]), score.explanation
    if "explain" in row:
        assert row["explain"] in score.explanation
    if "format_ok" in row:
        assert score.format_ok is row["format_ok"]
    assert score.explanation


EXTRACTION = _table("extraction")


@pytest.mark.parametrize("row", EXTRACTION, ids=_ids(EXTRACTION))
def test_extraction(row: dict[str, Any]) -> None:
    scorer = JsonFieldsMatch(
        expected=row["expected"],
        modes=row.get("match", {"*": "exact"}),
        conflicts=row.get("conflicts", {}),
    )
    _check(scorer(row["reply"], row.get("finish", "stop")), row)


SUMMARY = _table("summary")


@pytest.mark.parametrize("row", SUMMARY, ids=_ids(SUMMARY))
def test_summary(row: dict[str, Any]) -> None:
    scorer = RequiredPoints(
        row["points"], row.get("forbidden", []), material=row.get("material", "")
    )
    _check(scorer(row["reply"], row.get("finish", "stop")), row)


REWRITE = _table("rewrite")


@pytest.mark.parametrize("row", REWRITE, ids=_ids(REWRITE))
def test_rewrite(row: dict[str, Any]) -> None:
    c = row["constraints"]
    scorer = RewriteConstraints(
        max_sentence=c.get("max_sentence"),
        max_length=c.get("max_length"),
        min_length=c.get("min_length"),
        required=c.get("required", ()),
        forbidden=c.get("forbidden", ()),
    )
    _check(scorer(row["reply"], row.get("finish", "stop")), row)


REFUSAL = _table("refusal")


@pytest.mark.parametrize("row", REFUSAL, ids=_ids(REFUSAL))
def test_refusal(row: dict[str, Any]) -> None:
    scorer = RefusalCheck(
        question=row["question"],
        phrases=(*REFUSAL_PHRASES, *row.get("phrases", [])),
        invented=row.get("invented", ()),
        allowed=row.get("allowed", ()),
        material=row.get("material", ""),
    )
    _check(scorer(row["reply"], row.get("finish", "stop")), row)


SENTENCES = _table("sentences")


@pytest.mark.parametrize("row", SENTENCES, ids=_ids(SENTENCES))
def test_sentence_splitting(row: dict[str, Any]) -> None:
    assert split_sentences(row["text"]) == row["sentences"]


LENGTHS = _table("lengths")


@pytest.mark.parametrize("row", LENGTHS, ids=_ids(LENGTHS))
def test_length_counts_cjk_characters_and_other_words(row: dict[str, Any]) -> None:
    assert text_length(row["text"]) == row["length"]


GOLDEN = _table("sentences_golden")


@pytest.mark.parametrize("row", GOLDEN, ids=_ids(GOLDEN))
def test_sentence_splitting_agrees_with_the_golden_rules(row: dict[str, Any]) -> None:
    """Rows of pySBD's tests (the Golden Rules of Pragmatic Segmenter, MIT licence) whose split
    is our decision too; their source is in each row."""
    assert split_sentences(row["text"]) == row["sentences"]


CLAIMS = _table("claims")


@pytest.mark.parametrize("row", CLAIMS, ids=_ids(CLAIMS))
def test_the_stance_of_a_mention(row: dict[str, Any]) -> None:
    (span,) = find_phrase(row["text"], row["mention"])
    assert stance(row["text"], *span, reach=row["reach"]).stance == row["stance"]


HOSTILE = [
    "主管尚未批准退款，" * 5000,
    "e.g. " * 10000,
    "(" * 20000 + "not mentioned.",
    '"' * 9999 + "材料未提及",
    "\x1b[31mnot mentioned\x1b[0m \x00 \ud800 \u202e 材料未提及",
    "Lars Nilsen " * 5000 + "does not say.",
    "1" * 5000 + "，" + "9" * 5000,
    "?" * 10000 + "。" * 10000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_a_hostile_reply_gets_a_typed_outcome_from_every_suite_scorer(text: str) -> None:
    scorers = [
        RequiredPoints([["批准退款", "refund approved"], ["1299 元"]], [["换货"]], material="m"),
        RefusalCheck("Who heads the office?", material="The office opened in 2019."),
        RewriteConstraints(max_sentence=25, max_length=80, required=("退款",), forbidden=("亲",)),
        JsonFieldsMatch({"name": "王丽"}, {"*": "contains"}),
    ]
    for scorer in scorers:
        for finish in ("stop", "length"):
            score = scorer(text, finish)
            assert score.outcome in OUTCOMES and score.explanation
