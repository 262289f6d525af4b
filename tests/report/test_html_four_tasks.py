"""Three models on four tasks (arithmetic, gsm8k, a suite, structured), each report.html opened
in headless Chromium: the arithmetic tiers only on the arithmetic page, and no empty section on
any (every section drawn holds a chart or a table with rows). A screenshot of each page is kept
(`PROCTOR_SHOTS_DIR` keeps a copy)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.datasets.benchmarks import builtin_bytes
from support.browser import screenshot, severe_logs, wait_ready
from support.stub.scripted import Scripted, run_scripted

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
SUITE = """\
id,kind,material,question,expected,points,constraints
ext,extraction,张三退款 299 元。,提取姓名和金额，输出 JSON。,"{""name"":""张三"",""amount"":299}",,
sum,summary,Revenue grew 12%.,Summarise.,,12%,
ref,refusal,The office opened in 2019.,Who heads the office?,,,
"""
STRUCTURED = [json.loads(line) for line in builtin_bytes("structured", "items.jsonl").splitlines()]
TASKS = ("arithmetic", "gsm8k", "suite", "structured")
EMPTY_SECTIONS = """
return [...document.querySelectorAll('main section')]
  .filter(s => s.id !== 'samples')
  .filter(s => !s.querySelector('svg, table tbody tr'))
  .map(s => s.id);
"""


def _script(answer: str, confidence: float) -> Any:
    def reply(messages: list[dict[str, Any]]) -> Scripted:
        asked = "\n".join(str(m["content"]) for m in messages)
        for item in STRUCTURED:
            if item["question"] in asked:
                until = "FOREVER" if not item["time_sensitive"] else item["question_time"]
                return Scripted(json.dumps(
                    {"answer": answer, "confidence_score": confidence,
                     "source_citation": [item["data_point"][0]], "valid_until": until}
                ))  # fmt: skip
        if "张三" in asked:
            return Scripted('{"name": "张三", "amount": 299}')
        if "Revenue" in asked:
            return Scripted("Revenue grew 12%.")
        if "heads the office" in asked:
            return Scripted("The material does not say.")
        return Scripted(f"Final answer: {answer}\n#### {answer}")

    return reply


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    tmp = tmp_path_factory.mktemp("four")
    (tmp / "mini.csv").write_text(SUITE, encoding="utf-8")
    scripts = [_script("42", 0.9), _script("18", 0.6), _script("7", 0.3)]
    with (
        run_scripted(scripts[0]) as a,
        run_scripted(scripts[1]) as b,
        run_scripted(scripts[2]) as c,
    ):
        models = [s.model for s in (a, b, c)]
        out: dict[str, Path] = {}
        for task in TASKS:
            what = ["--suite", str(tmp / "mini.csv")] if task == "suite" else [task]
            size = {"arithmetic": ["--n", "12"], "gsm8k": ["--limit", "6"],
                    "structured": ["--limit", "4"]}.get(task, [])  # fmt: skip
            results = tmp / task
            args = ["run", *what, *size, "-r", str(results), "--max-attempts", "1"]
            for m in models:
                args += ["-m", m]
            result = CliRunner().invoke(app, args, env=ENV, catch_exceptions=False)
            assert result.exit_code == 0, result.output
            (run,) = (results / "runs").iterdir()
            out[task] = run / "report.html"
        yield out


@pytest.mark.parametrize("task", TASKS)
def test_four_tasks_render_without_foreign_tiers_or_empty_sections(
    browser: Any, reports: dict[str, Path], task: str, tmp_path: Path
) -> None:
    severe_logs(browser)
    browser.get(reports[task].resolve().as_uri())
    wait_ready(browser)
    heads = browser.execute_script(
        "return [...document.querySelectorAll('table.ranking th')].map(t => t.textContent)"
    )
    text = browser.execute_script("return document.body.innerText")
    tiered = task == "arithmetic"
    assert ("tier" in heads) is tiered, heads
    assert ("can carry numeric work without tools" in text) is tiered
    assert browser.execute_script(EMPTY_SECTIONS) == []
    sections = browser.execute_script(
        "return [...document.querySelectorAll('main section:not(#samples)')]"
        ".map(s => s.innerText).join('\\n')"
    )
    assert "(none)" not in sections and "no " + "data" not in sections
    assert len(heads) > 5 and text.count("openai-compat/scripted@") >= 3
    if task == "structured":
        assert browser.execute_script("return !!document.getElementById('calibration')")
    assert severe_logs(browser) == []
    screenshot(browser, tmp_path / f"four-tasks-{task}.png")
