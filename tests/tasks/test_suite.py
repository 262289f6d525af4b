"""A suite run end to end with scripted models: `proctor run --suite`, the suite's version in the
run, `proctor score` re-grading from the store alone (the suite file gone), consistency over
repeated replies; and the example suite shipped in examples/."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.datasets.suites.case import KINDS, CaseSpec
from proctor.datasets.suites.loader import load_suite
from proctor.providers.fake import FakeProvider
from proctor.runs import ask as runner
from proctor.store import RunStore
from proctor.tasks.suite import grade, load_file
from proctor.types import Prompt, Record, Usage

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk.csv"
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
SUITE = """\
id,kind,material,question,expected,points,constraints
ext,extraction,张三退款 299 元。,提取姓名和金额，输出 JSON。,"{""name"":""张三"",""amount"":299}",,
sum,summary,Revenue grew 12%.,Summarise.,,12%,
rw,rewrite,我们非常抱歉。,改写。,,,max_sentence=25
ref,refusal,The office opened in 2019.,Who heads the office?,,,
"""


def invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env=ENV, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def scripted(suite: Path, replies: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates answer case X with the next of replies[X] (cycling), whatever the model."""
    by_input = {s.input: s.id for s in load_file(suite, None).samples}
    asked: Counter[str] = Counter()

    def script(prompt: Prompt) -> str:
        case = by_input[prompt.messages[-1].content]
        asked[case] += 1
        options = replies[case]
        return options[(asked[case] - 1) % len(options)]

    monkeypatch.setattr(runner, "make_provider", lambda m, key=None: FakeProvider(m, script))


def test_run_suite_then_score_from_the_store_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "mini.csv"
    suite.write_text(SUITE, encoding="utf-8")
    scripted(
        suite,
        {
            "ext": ['```json\n{"name": "张三", "amount": "299元"}\n```'],
            "sum": ["Revenue grew 12%."],
            "rw": ["很抱歉。"],
            "ref": ["The material does not say; probably about 3 people."],
        },
        monkeypatch,
    )
    results = tmp_path / "results"
    out = invoke("run", "--suite", suite, "-m", "fake/const:x", "-r", results)
    assert re.search(r"50\.0 %", out)
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
        config = store.run_config(row.run_id)
        info = store.run_info(row.run_id)
        before = store.scores(row.run_id)
    assert row.task == "suite"
    assert config["suite"]["content_hash"].startswith("sha256:")  # type: ignore[index]
    assert config["suite"]["git_note"] == "not in a git repository"  # type: ignore[index]
    assert "not in a git repository" in info.generator_version
    assert "suite mini · " in out
    assert {k: s.rule for (_, k, _), s in before.items()} == {
        "ext": "value_type",
        "sum": "points_present",
        "rw": "constraints_met",
        "ref": "invented_number",
    }
    suite.unlink()
    out = invoke("score", row.run_id, "-r", results)
    with RunStore.open(results) as store:
        assert store.scores(row.run_id) == before
    assert "a number with a unit" in (results / "runs" / row.run_id / "samples.csv").read_text(
        encoding="utf-8"
    )


def test_consistency_over_repeated_replies_is_reported_apart_from_accuracy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "mini.csv"
    suite.write_text(SUITE, encoding="utf-8")
    scripted(
        suite,
        {
            "ext": ['{"name": "张三", "amount": 299}'],
            "sum": ["Revenue grew 12%.", "Revenue fell."],
            "rw": ["很抱歉。"],
            "ref": ["Not mentioned."],
        },
        monkeypatch,
    )
    results = tmp_path / "results"
    out = invoke(
        "run", "--suite", suite, "-m", "fake/const:x", "--samples", "5", "--temperature", "0.7",
        "-r", results,
    )  # fmt: skip
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("Consistency"))
    line = next(x for x in lines[start:] if x.startswith("fake/const:x"))
    # overall over 4 cases, then each kind (one case each)
    assert re.findall(r"\d+\.\d %", line) == ["75.0 %", "100.0 %", "0.0 %", "100.0 %", "100.0 %"]
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
    need = ["--require", "consistency>=0.75", "--require", "kind=summary:consistency>=0.5"]
    gate = CliRunner().invoke(app, ["gate", run.run_id, "-r", str(results), *need], env=ENV)
    # one summary case, never consistent, cannot show it is below 50 %: inconclusive (exit 7)
    assert gate.exit_code == 7
    assert "75.0 %" in gate.output and "INCONCLUSIVE" in gate.output
    by_point = CliRunner().invoke(
        app, ["gate", run.run_id, "-r", str(results), "--rule", "point", *need], env=ENV
    )
    assert by_point.exit_code == 1
    assert "FAIL" in by_point.output


def test_a_task_name_with_suite_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "mini.csv"
    suite.write_text(SUITE, encoding="utf-8")
    result = CliRunner().invoke(app, ["run", "arithmetic", "--suite", str(suite)], env=ENV)
    assert result.exit_code != 0
    assert "drop the task name" in str(result.exception)


def test_the_suite_task_without_a_file_says_how() -> None:
    from proctor.errors import ConfigError
    from proctor.tasks.suite import load

    with pytest.raises(ConfigError, match="--suite FILE"):
        load(None, None)


# -- the example suite ----------------------------------------------------------------------


def test_the_example_suite_has_ten_cases_of_each_kind_in_both_languages() -> None:
    suite = load_suite(EXAMPLE)
    assert len(suite.samples) == 40
    specs = [CaseSpec.from_metadata(s.metadata) for s in suite.samples]
    assert Counter(s.kind for s in specs) == dict.fromkeys(KINDS, 10)
    for kind in KINDS:
        langs = Counter(s.lang for s in specs if s.kind == kind)
        assert langs["zh"] >= 4 and langs["en"] >= 4, (kind, langs)
    assert all(s.notes for s in specs)
    assert suite.config.gate.require


def _reference(sample: Any) -> str:
    spec = CaseSpec.from_metadata(sample.metadata)
    return spec.reference if spec.kind == "refusal" else str(sample.target)


@pytest.mark.parametrize("sample", load_suite(EXAMPLE).samples, ids=lambda s: s.id)
def test_every_standard_answer_of_the_example_passes_its_own_rules(sample: Any) -> None:
    record = Record(
        "r", "m", sample.id, "ok", _reference(sample), "stop", Usage(), 0, 1, "suite", "en"
    )
    score = grade(record, sample)
    assert score.outcome == "correct", score.explanation
