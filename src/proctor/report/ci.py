"""What CI systems read of a run or a gate: JUnit XML (one test case per answer of a run, per
requirement of a gate; the files every CI dashboard shows) and the gate's Markdown for a job's
summary page or a pull-request comment. Pure: from the run's statistics, the gate's rows.

A run's answer is a passing test case when correct, a `<failure>` when scored and not correct
(its outcome and rule say why), an `<error>` when the call failed and `<skipped>` when unscored
(neither counts for or against the model). A gate's requirement passes or fails; a run the
gate cannot speak for (incomplete, calls failed) adds a case "run state" in `<error>`.
Text from a model is an adversary: characters XML 1.0 cannot hold are dropped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from proctor.report.markdown import escape_cell, markdown_table
from proctor.report.text import gate_value
from proctor.stats.gates import GateRow
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.run_statistics import RunStatistics
from proctor.types import GradedItem

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_COUNTS = (("failure", "failures"), ("error", "errors"), ("skipped", "skipped"))
EXCERPT = 2000
"""Characters of a reply kept in a failure's text."""


def xml_text(text: str, limit: int | None = None) -> str:
    """`text` without the characters XML 1.0 forbids (NUL, most control characters, lone
    surrogates), cut to `limit` characters."""
    clean = _NOT_XML.sub("", text)
    return clean if limit is None or len(clean) <= limit else clean[:limit] + "…"


def _case(suite: ET.Element, name: str, classname: str, time: float = 0.0) -> ET.Element:
    return ET.SubElement(
        suite, "testcase", name=xml_text(name), classname=xml_text(classname), time=f"{time:.3f}"
    )


def _item_case(suite: ET.Element, item: GradedItem, task: str, epochs: int) -> str:
    """The item's test case; its kind ("", "failure", "error", "skipped")."""
    record, score = item.record, item.score
    name = item.sample.id + (f" #{record.epoch + 1}" if epochs > 1 else "")
    case = _case(suite, name, f"{task}.{record.model}", record.latency_s)
    if score.outcome == "correct":
        return ""
    if score.outcome == "call_failed":
        kind, message = "error", record.error or score.explanation
    elif score.outcome in NOT_SCORED:
        kind, message = "skipped", score.explanation
    else:
        kind, message = "failure", f"{score.outcome} ({score.rule}): {score.explanation}"
    node = ET.SubElement(case, kind, message=xml_text(message, 500))
    if kind == "failure":
        node.set("type", score.outcome)
        node.text = xml_text(
            f"target: {item.sample.target}\nextracted: {score.extracted}\nreply:\n{record.text}",
            EXCERPT,
        )
    return kind


def _finish(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def run_junit(stats: RunStatistics) -> str:
    """The run as JUnit XML: a test suite per model, a test case per answer."""
    info = stats.info
    epochs = 1 + max((i.record.epoch for i in stats.items), default=0)
    root = ET.Element("testsuites", name=xml_text(f"proctor run {info.run_id}"))
    for model in info.models:
        suite = ET.SubElement(root, "testsuite", name=xml_text(f"{info.task} · {model}"))
        kinds = [_item_case(suite, i, info.task, epochs) for i in stats.items
                 if i.record.model == model]  # fmt: skip
        suite.set("tests", str(len(kinds)))
        for kind, attribute in _COUNTS:
            suite.set(attribute, str(kinds.count(kind)))
        suite.set("time", f"{sum(float(c.get('time', 0)) for c in suite):.3f}")
    _totals(root)
    return _finish(root)


def _totals(root: ET.Element) -> None:
    for attribute in ("tests", "failures", "errors", "skipped"):
        root.set(attribute, str(sum(int(s.get(attribute, 0)) for s in root)))


def gate_junit(run_id: str, rows: Sequence[GateRow], state_error: str | None) -> str:
    """A gate as JUnit XML: a test case per requirement (and model); "run state" in error with
    `state_error` when the run is incomplete or calls failed: the gate cannot speak for it."""
    root = ET.Element("testsuites", name=xml_text(f"proctor gate {run_id}"))
    suite = ET.SubElement(root, "testsuite", name=xml_text(f"gate · run {run_id}"))
    failures = errors = 0
    for row in rows:
        case = _case(suite, f"{row.requirement} · {row.model}", f"gate.{run_id}")
        if not row.passed:
            failures += 1
            message = f"{row.metric} = {gate_value(row)} (n = {row.n})"
            # Too little evidence is not a pass either: a failure of its own type.
            kind = "inconclusive" if row.inconclusive else "requirement"
            node = ET.SubElement(case, "failure", message=xml_text(message), type=kind)
            node.text = xml_text(row.note) if row.note else None
    if state_error:
        errors += 1
        case = _case(suite, "run state", f"gate.{run_id}")
        ET.SubElement(case, "error", message=xml_text(_plain(state_error), 500))
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    _totals(root)
    return _finish(root)


def _plain(line: str) -> str:
    """A terminal line without its rich markup tags ("[red]…[/]")."""
    return re.sub(r"\[/?[a-z ]*\]", "", line)


def gate_markdown(run_id: str, rows: Sequence[GateRow], why_not: str | None) -> str:
    """The gate for a job summary or a pull-request comment: a verdict line and a table.
    `why_not`: the line that says why the gate did not pass (None when it passed)."""
    verdict = "❌ proctor gate did not pass" if why_not else "✅ proctor gate passed"
    passing = sum(r.passed for r in rows)
    lines = [f"### {verdict}", "", f"run `{run_id}` · {passing} of {len(rows)} checks pass"]
    if why_not:
        lines += ["", escape_cell(_plain(why_not), None)]
    if rows:
        body = [
            [escape_cell(r.requirement), escape_cell(r.model), gate_value(r), str(r.n),
             "pass" if r.passed else f"**{r.result}**", escape_cell(r.note)]
            for r in rows
        ]  # fmt: skip
        head = ["requirement", "model", "value", "n", "result", "note"]
        lines += ["", markdown_table(head, body)]
    return "\n".join(lines).rstrip() + "\n"
