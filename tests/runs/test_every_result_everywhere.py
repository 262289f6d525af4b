"""Every result a run has appears in all four of its outputs: the terminal, results.json,
summary.md and report.html; and a result the run has no data for appears in none.

Through the public path: `proctor run` against a scripted loopback model (it also plays the
judge), then the files the run wrote are read. One suite run (judged, with a [gate] in its
config, two replies per case) carries judge verdicts, pass@k, consistency and its gate; a gsm8k
run the lm-eval filters; a structured run the calibration of stated confidences."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.datasets.benchmarks import builtin_bytes
from proctor.prompts.judge import POINTWISE_SYSTEM
from support.stub.scripted import Scripted, ScriptedServer, run_scripted

ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
SUITE = """\
id,kind,material,question,expected,points,constraints
ext,extraction,张三退款 299 元。,提取姓名和金额，输出 JSON。,"{""name"":""张三"",""amount"":299}",,
sum,summary,Revenue grew 12%.,Summarise.,,12%,
"""
CONFIG = """\
name = "mini"
judge_kinds = ["summary"]

[gate]
# two cases prove no threshold by their interval: this gate names the point-estimate rule
require = ["rule=point:accuracy>=0.5", "rule=point,kind=extraction:accuracy>=0.9"]
"""
VERDICT = '{"score": 7, "correctness": 8, "completeness": 6, "reason": "fine"}'
STRUCTURED = [json.loads(line) for line in builtin_bytes("structured", "items.jsonl").splitlines()]


def _structured_reply(asked: str) -> str | None:
    """A reply in the structured protocol (confidence 0.8) to the shipped item asked, if any."""
    for item in STRUCTURED:
        if item["question"] in asked:
            cited = [item["data_point"][0]]
            until = "FOREVER" if not item["time_sensitive"] else item["question_time"]
            return json.dumps(
                {"answer": "42", "confidence_score": 0.8, "source_citation": cited,
                 "valid_until": until}
            )  # fmt: skip
    return None


def _reply(messages: list[dict[str, Any]]) -> Scripted:
    if messages[0]["content"] == POINTWISE_SYSTEM:
        return Scripted(VERDICT)
    asked = "\n".join(str(m["content"]) for m in messages)
    structured = _structured_reply(asked)
    if structured is not None:
        return Scripted(structured)
    if "张三" in asked:
        return Scripted('{"name": "张三", "amount": 299}')
    if "Revenue" in asked:
        return Scripted("Revenue grew 12%.")
    return Scripted("The answer is 18.\n#### 18")  # gsm8k


@dataclass(frozen=True)
class Outputs:
    terminal: str
    results: dict[str, Any]
    summary: str
    html: str


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with run_scripted(_reply) as s:
        yield s


def _run(tmp: Path, *args: object) -> Outputs:
    results = tmp / "results"
    cli = ["run", *map(str, args), "-r", str(results), "--max-attempts", "1"]
    out = CliRunner().invoke(app, cli, env=ENV, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    (run,) = (results / "runs").iterdir()
    return Outputs(
        out.output,
        json.loads((run / "results.json").read_text(encoding="utf-8")),
        (run / "summary.md").read_text(encoding="utf-8"),
        (run / "report.html").read_text(encoding="utf-8"),
    )


@pytest.fixture(scope="module")
def suite_run(server: ScriptedServer, tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    tmp = tmp_path_factory.mktemp("suite")
    (tmp / "mini.csv").write_text(SUITE, encoding="utf-8")
    (tmp / "mini.toml").write_text(CONFIG, encoding="utf-8")
    return _run(
        tmp, "--suite", tmp / "mini.csv", "-m", server.model, "--judge",
        f"openai-compat/judge@{server.base_url}", "--samples", 2, "--temperature", 0.5,
    )  # fmt: skip


@pytest.fixture(scope="module")
def gsm8k_run(server: ScriptedServer, tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    return _run(tmp_path_factory.mktemp("gsm8k"), "gsm8k", "--limit", 3, "-m", server.model)


@pytest.fixture(scope="module")
def structured_run(server: ScriptedServer, tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    tmp = tmp_path_factory.mktemp("structured")
    return _run(tmp, "structured", "--limit", 4, "-m", server.model)


Check = Callable[[Outputs], None]


def _judge(o: Outputs) -> None:
    assert "Judge openai-compat/judge@" in o.terminal
    (judge,) = o.results["judges"]
    assert judge["pointwise"][0]["mean_score"] == 7.0
    assert "### Judge openai-compat/judge@" in o.summary
    assert 'class="result judge"' in o.html and "7.00" in o.html


def _pass_at_k(o: Outputs) -> None:
    assert "pass@2" in o.terminal
    (repeats,) = o.results["repeats"].values()
    assert repeats["replies_per_item"] == 2 and "2" in repeats["pass_at"]
    assert "### Repeated samples" in o.summary and "pass@2" in o.summary
    assert 'id="repeats"' in o.html and "pass@2" in o.html


def _consistency(o: Outputs) -> None:
    assert "Consistency" in o.terminal
    (consistency,) = o.results["consistency"].values()
    assert consistency["overall"]["value"] == 1.0  # the scripted replies never change
    assert "### Consistency" in o.summary
    assert 'id="consistency"' in o.html


def _gate(o: Outputs) -> None:
    assert "Gate" in o.terminal and "kind=extraction:accuracy>=0.9" in o.terminal
    assert o.results["gate"]["passed"] is True
    assert [c["requirement"] for c in o.results["gate"]["checks"]] == [
        "rule=point:accuracy>=0.5",
        "rule=point,kind=extraction:accuracy>=0.9",
    ]
    assert all(c["rule"] == "point" for c in o.results["gate"]["checks"])
    assert "### Gate" in o.summary and "gate passed" in o.summary
    assert "point-estimate rule" in o.summary and "point-estimate rule" in o.html
    assert 'id="gate"' in o.html and "kind=extraction:accuracy&gt;=0.9" in o.html


def _lm_eval_filters(o: Outputs) -> None:
    (metrics,) = o.results["task_metrics"].values()
    assert metrics and all(isinstance(v, float) for v in metrics.values())
    name = next(iter(metrics))
    assert "gsm8k metrics" in o.terminal and name in o.terminal
    assert "### gsm8k metrics" in o.summary and name in o.summary
    assert 'id="task-metrics"' in o.html and name in o.html


def _calibration(o: Outputs) -> None:
    (calibration,) = o.results["calibration"].values()
    assert calibration["n"] > 0 and calibration["mean_confidence"] == pytest.approx(0.8)
    assert "Calibration" in o.terminal and "ECE" in o.terminal
    assert "### Calibration" in o.summary
    assert 'id="calibration"' in o.html and "chart-reliability" in o.html


@pytest.mark.parametrize(
    ("run", "check"),
    [
        ("suite_run", _judge),
        ("suite_run", _pass_at_k),
        ("suite_run", _consistency),
        ("suite_run", _gate),
        ("gsm8k_run", _lm_eval_filters),
        ("structured_run", _calibration),
    ],
    ids=["judge", "pass@k", "consistency", "gate", "lm-eval filters", "calibration"],
)
def test_a_result_appears_in_all_four_outputs(
    run: str, check: Check, request: pytest.FixtureRequest
) -> None:
    check(request.getfixturevalue(run))


def test_a_result_without_data_appears_nowhere(gsm8k_run: Outputs) -> None:
    """One model, one reply per item, no judge, no gate, no confidence, no tier scale: none of
    their sections, in any output."""
    o = gsm8k_run
    for key in ("judges", "repeats", "consistency", "gate", "calibration", "tiers", "paired"):
        assert key not in o.results
    assert {m["tier"] for m in o.results["models"]} == {""}
    for title in ("Judge", "Repeated samples", "Consistency", "Gate", "Calibration", "Tiers",
                  "Paired comparisons", "Size vs accuracy", "Bare vs calculator"):  # fmt: skip
        assert f"### {title}" not in o.summary
        assert f"<h2>{title}" not in o.html
    assert "can carry numeric work without tools" not in o.terminal + o.summary + o.html
    assert "<th>tier</th>" not in o.html
