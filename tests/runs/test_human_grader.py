"""People's verdicts as a grader, through the CLI: beside the rules' grades in results.json,
samples.csv, summary.md and report.html; kept by `proctor score` (which grades the rules
again); counted instead of the rules for a kind with `--grade-by KIND=human` (and the report
says so); and read by `proctor judge --against human` as the labels."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from proctor.store import RunStore
from proctor.store.human_verdicts import HumanVerdict, reply_hash
from support.judge_suite import RunSuite
from support.stub.config import StubConfig
from support.stub.server import run_stub

from .test_review import REPLIES, proctor

# The person: the refusal is wrong (say the desk wanted a referral too); the rest correct.
VERDICTS = {"ext": "correct", "sum": "correct", "rw": "correct", "ref": "wrong"}


def review(results: Path, run_id: str, verdicts: dict[str, str], reviewer: str = "ann") -> None:
    with RunStore.open(results) as store:
        store.add_human_verdicts(
            run_id,
            [
                HumanVerdict(run_id, "fake/a", sid, 0, reviewer, v, f"note on {sid}",
                             reply_hash(REPLIES[sid]), False, f"2026-12-01T10:0{i}:00+00:00")
                for i, (sid, v) in enumerate(verdicts.items())
            ],
        )  # fmt: skip


def files(results: Path, run_id: str) -> tuple[dict, list[dict[str, str]], str, str]:  # type: ignore[type-arg]
    folder = results / "runs" / run_id
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader(io.StringIO((folder / "samples.csv").read_text(encoding="utf-8"))))
    md = (folder / "summary.md").read_text(encoding="utf-8")
    html = (folder / "report.html").read_text(encoding="utf-8")
    return data, rows, md, html


def test_verdicts_stand_beside_the_rules_everywhere_and_survive_score(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES}, results)
    review(results, run_id, VERDICTS)
    done = proctor("score", run_id, "-r", results)
    assert done.returncode == 0, done.stderr
    assert "Human verdicts" in done.stdout
    data, rows, md, html = files(results, run_id)
    rules = {r["sample_id"]: r["outcome"] for r in rows}
    assert {r["sample_id"]: r["human_verdict"] for r in rows} == VERDICTS
    assert {r["human_reviewer"] for r in rows} == {"ann"}
    assert all(r["rule"] != "human" for r in rows)  # counted by the rules
    (overall,) = [r for r in data["human"]["rows"] if r["kind"] == "all"]
    agree = sum(rules[s] == v for s, v in VERDICTS.items() if rules[s] in ("correct", "wrong"))
    assert overall["reviewed"] == 4 and overall["rules_agree"] == agree
    assert {v["sample_id"]: v["verdict"] for v in data["human"]["verdicts"]} == VERDICTS
    assert data["human"]["grade_by"] == [] and data["human"]["counted"] == 0
    assert "### Human verdicts" in md and "| fake/a | all | 4 | 3 | 1 |" in md
    assert "Human verdicts" in html and "Counted by the rules" in html
    assert "wrong · ann: note on ref" in html  # beside the rules' grade in its sample browser
    with RunStore.open(results) as store:
        assert len(store.human_verdicts(run_id)) == 4  # score re-graded the rules, kept these


def test_grade_by_human_counts_a_kind_by_people_and_says_so(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES}, results)
    review(results, run_id, VERDICTS)
    assert proctor("report", run_id, "-r", results).returncode == 0
    before, rows, _, _ = files(results, run_id)
    rules = {r["sample_id"]: r["outcome"] for r in rows}
    done = proctor("report", run_id, "--grade-by", "refusal=human", "-r", results)
    assert done.returncode == 0, done.stderr
    after, rows, md, html = files(results, run_id)
    counted = {**rules, "ref": "wrong"}
    assert {r["sample_id"]: r["outcome"] for r in rows} == counted
    assert [r["rule"] for r in rows if r["sample_id"] == "ref"] == ["human"]
    (model,) = after["models"]
    assert model["correct"] == sum(o == "correct" for o in counted.values())
    assert after["human"]["grade_by"] == ["refusal"] and after["human"]["counted"] == 1
    for text in (md, html, done.stdout):
        assert "kinds refusal (--grade-by human): 1 grades taken from people" in " ".join(
            text.split()
        )
    bad = proctor("report", run_id, "--grade-by", "refusal=crowd", "-r", results)
    assert bad.returncode == 2 and "--grade-by" in bad.stderr
    assert before["models"][0]["correct"] == sum(o == "correct" for o in rules.values())


def test_judge_against_human_reads_the_stored_verdicts(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES}, results)
    no_labels = proctor("judge", run_id, "--judge", "fake/j", "--against", "human", "-r", results)
    assert no_labels.returncode == 2 and "has no human verdicts" in no_labels.stderr
    review(results, run_id, {**VERDICTS, "sum": "skip"}, reviewer="bob")  # bob skips sum…
    review(results, run_id, {"sum": "correct"}, reviewer="ann")  # …ann decides it
    verdict = '{{"score": {}, "correctness": 5, "completeness": 5, "reason": "r"}}'
    script = StubConfig(
        answer_mode="script",
        replies=(
            ("amount", verdict.format(8)), (REPLIES["sum"], verdict.format(8)),
            (REPLIES["rw"], verdict.format(4)), (REPLIES["ref"], verdict.format(3)),
        ),
    )  # fmt: skip
    with run_stub(script) as judge:
        model = f"openai-compat/judge-bot@{judge.base_url}"
        done = proctor("judge", run_id, "--judge", model, "--against", "human", "-r", results)
    assert done.returncode == 0, done.stderr
    # people: pass pass pass fail; judge: pass pass fail fail → 3 of 4, p_e = .5·.75 + .5·.25
    assert "agreement 75.0% (3 of 4); Cohen's kappa 0.5" in " ".join(done.stdout.split())


def test_reports_show_a_reviewers_drift_and_two_reviewers_agreement(
    tmp_path: Path, suite_path: Path, run_suite: RunSuite
) -> None:
    results = tmp_path / "results"
    run_id = run_suite(suite_path, {"fake/a": REPLIES}, results)
    review(results, run_id, VERDICTS)  # ann: c c c w
    review(results, run_id, {"ext": "correct", "sum": "wrong", "rw": "correct", "ref": "wrong"},
           reviewer="bob")  # fmt: skip
    with RunStore.open(results) as store:  # ann, blind, months later: changes her mind on sum
        store.add_human_verdicts(
            run_id,
            [
                HumanVerdict(run_id, "fake/a", sid, 0, "ann", v, "", reply_hash(REPLIES[sid]),
                             True, "2027-03-01T10:00:00+00:00")
                for sid, v in (("ext", "correct"), ("sum", "wrong"), ("ref", "wrong"))
            ],
        )  # fmt: skip
    assert proctor("report", run_id, "-r", results).returncode == 0
    data, rows, md, html = files(results, run_id)
    agreement = {(a["who"], a["over"]): a for a in data["human"]["agreement"]}
    ann = agreement[("ann", "all")]
    assert (ann["agree"], ann["n"]) == (2, 3)
    # earlier c c w, again c w w: p_o 2/3, p_e = 2/3·1/3 + 1/3·2/3 = 4/9 → kappa 0.4
    assert abs(ann["kappa"] - 0.4) < 1e-9
    pair = agreement[("ann × bob", "all")]  # their latest non-blind verdicts: 3 of 4 agree
    assert (pair["agree"], pair["n"]) == (3, 4)
    for text in (md, html):
        assert "Reviewer agreement" in text and "66.7 % (2 of 3) · κ 0.40" in text
        assert "75.0 % (3 of 4)" in text
    # counted: the newest decided verdict on each reply, whoever gave it
    assert {r["sample_id"]: r["human_verdict"] for r in rows}["sum"] == "wrong"
