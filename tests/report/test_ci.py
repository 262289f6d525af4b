"""JUnit XML and the gate's Markdown (`proctor.report.ci`): parsed back with xml.etree; a reply
that is not correct is never a passing test case; a hostile reply cannot break the XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from proctor.report.ci import gate_junit, gate_markdown, run_junit, xml_text
from proctor.stats.gates import GateRow
from proctor.types import GradedItem, Outcome, Record, RunInfo, Sample, Score, Usage
from support.run_stats import statistics

HOSTILE = "\x00\x1b[31m]]></testcase><testcase name='fake'/>\ud800 & <b>\x0c"


def item(sample_id: str, outcome: Outcome, text: str, error: str = "") -> GradedItem:
    status = "call_failed" if outcome == "call_failed" else "ok"
    record = Record("r", "m/a", sample_id, status, text, "stop", Usage(1, 1), 0.25, 1, "A", "en",
                    error=error)  # fmt: skip
    return GradedItem(Sample(sample_id, "1 + 1", "2"), record, Score(outcome, "rule", "why"))


def test_every_answer_is_a_case_and_only_correct_ones_pass() -> None:
    items = [
        item("wrong", "wrong", HOSTILE),
        item("none", "no_answer", "hmm"),
        item("failed", "call_failed", "", error="HTTP 500 \x00"),
        item("unscored", "unscored", "?"),
        item("right", "correct", "2"),
    ]
    info = RunInfo("r", "arithmetic", ("m/a",), "h", 5, "g", "A", "en", "2026-12-02T00:00:00")
    root = ET.fromstring(run_junit(statistics(info, items, {})))
    (suite,) = root
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"wrong", "none", "failed", "unscored", "right"}  # no injected case
    assert [x.tag for x in cases["wrong"]] == ["failure"]
    assert cases["wrong"][0].get("type") == "wrong" and "]]>" in (cases["wrong"][0].text or "")
    assert [x.tag for x in cases["none"]] == ["failure"]
    assert [x.tag for x in cases["failed"]] == ["error"]
    assert [x.tag for x in cases["unscored"]] == ["skipped"]
    assert list(cases["right"]) == []
    counts = {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "5", "failures": "2", "errors": "1", "skipped": "1"}
    assert root.get("tests") == "5" and root.get("failures") == "2"


def test_xml_text_drops_what_xml_cannot_hold() -> None:
    assert xml_text("a\x00b\x1bc\ud800d\te\n") == "abcd\te\n"
    assert xml_text("x" * 10, 4) == "xxxx…"


def test_gate_cases_and_markdown() -> None:
    rows = [
        GateRow("accuracy>=0.9", "m/a", "accuracy", 0.95, 40, True),
        GateRow("accuracy>=0.9", "m/b|x", "accuracy", 0.7, 40, False, note="below"),
    ]
    root = ET.fromstring(gate_junit("r1", rows, None))
    cases = list(root.iter("testcase"))
    assert [c.get("name") for c in cases] == ["accuracy>=0.9 · m/a", "accuracy>=0.9 · m/b|x"]
    assert list(cases[0]) == [] and cases[1][0].tag == "failure"
    assert "70.0 %" in (cases[1][0].get("message") or "")
    state = ET.fromstring(gate_junit("r1", rows[:1], "[red]run r1 is incomplete:[/] resume it"))
    (error,) = state.iter("error")
    assert error.get("message") == "run r1 is incomplete: resume it"
    text = gate_markdown("r1", rows, "[red]gate failed:[/] 1 of 2 checks")
    assert text.startswith("### ❌ proctor gate did not pass")
    assert "| accuracy&gt;=0.9 | m/b\\|x | 70.0 % | 40 | **FAIL** | below |" in text
    assert gate_markdown("r1", rows[:1], None).startswith("### ✅ proctor gate passed")
