"""Terminal tables at 80 columns: `proctor list runs` with each model's score, and a run's
report with long model strings; no line over 80 cells, nothing cut ("…"), every label whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from proctor.cli.app import app
from support.big_store import make_big_store

ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
NAMES = (
    "meta-llama-3.1-70b-instruct",
    "qwen2.5-72b-instruct",
    "deepseek-v3-0324-long-name-here",
    "phi-4",
)
LOCAL = tuple(f"openai-compat/{n}@http://127.0.0.1:8080/v1" for n in NAMES)
HOSTED = ("anthropic/claude-3-5-sonnet-20241022", "openai/gpt-4o-2024-08-06-extra-long-suffix")
LOCAL_RUN, HOSTED_RUN, UNGRADED_RUN = (
    "20261201-101010-arithmetic-abcdef",
    "20261201-101011-arithmetic-123456",
    "20261201-101012-arithmetic-777777",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("columns") / "results"
    make_big_store(root, 300, LOCAL, LOCAL_RUN)  # 2 in 3 right: 66.7 %
    make_big_store(root, 50, HOSTED, HOSTED_RUN)  # 33 of 50: 66.0 %
    make_big_store(root, 30, ("fake/a",), UNGRADED_RUN, graded=False)
    return root


def lines(*args: str) -> list[str]:
    result = CliRunner().invoke(app, list(args), env=ENV)
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    too_wide = [line for line in out if cell_len(line) > 80]
    assert too_wide == []
    assert not any("…" in line for line in out)
    return out


def line_of(out: list[str], label: str) -> str:
    found = [line for line in out if line.strip().startswith(label + " ") or line.strip() == label]
    assert len(found) == 1, (label, out)
    return found[0]


def test_list_runs_shows_each_models_score_at_80_columns(results: Path) -> None:
    out = lines("list", "runs", "-r", str(results))
    header = out[1].split()
    assert header == ["run", "/", "model", "accuracy", "95", "%", "CI", "answers"]
    for name in NAMES:  # shortened as in the run's report, the dropped part said once
        assert line_of(out, name).split()[-4:] == ["66.7", "%", "[61.2–71.8]", "300"]
    assert sum("openai-compat/<name>@http://127.0.0.1:8080/v1" in line for line in out) == 1
    for model in HOSTED:  # nothing shared to drop: whole
        assert line_of(out, model).split()[-4:-2] == ["66.0", "%"]
    assert line_of(out, "fake/a").split()[-4:] == ["—", "not", "graded", "30"]
    assert line_of(out, LOCAL_RUN).split()[1:] == ["complete", str(300 * len(LOCAL))]
    assert "  arithmetic · 300 items · 2026-12-01" in [line.rstrip() for line in out]
    # newest first
    order = [i for i, line in enumerate(out) if line.startswith("2026")]
    assert [out[i].split()[0] for i in order] == [UNGRADED_RUN, HOSTED_RUN, LOCAL_RUN]


def test_report_of_long_model_strings_at_80_columns(results: Path) -> None:
    out = lines("report", LOCAL_RUN, "-r", str(results))
    ranking = out.index(next(line for line in out if line.startswith("Ranking")))
    header = out[ranking + 1].split()
    assert header == ["#", "model", "accuracy", "95", "%", "CI", "correct/scored", "tier"]
    for name in NAMES:
        row = next(line for line in out[ranking:] if f" {name} " in line)
        # the interval spans tiers C and B: the tier is withheld ("?")
        assert row.split()[1:] == [name, "66.7", "%", "[61.2–71.8]", "200/300", "?"]
