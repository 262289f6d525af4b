"""The terminal report at 80 columns through the CLI: repeated samples (the table of HumanEval's
pass@k) and consistency, whose numbers carry intervals, against a loopback stub and a model with
a long name and URL. No line over 80 cells, no interval broken across lines, no URL wrapped;
shares as percentages with one decimal in every table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.report.sections import _metric
from proctor.report.terminal_fit import terminal_label, terminal_labels
from support.stub import StubConfig
from support.stub.server import run_stub

ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
INTERVAL = re.compile(r"\[\d+\.\d–\d+\.\d\]")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


def test_repeated_samples_at_80_columns_keep_numbers_and_intervals_whole(tmp_path: Path) -> None:
    with run_stub(StubConfig()) as stub:
        model = f"openai-compat/some-long-model-name@{stub.base_url}"
        args = ["run", "arithmetic", "-m", model, "-m", "fake/const:Final answer: 42",
                "--limit", "10", "--samples", "3", "--temperature", "0.5",
                "-r", str(tmp_path)]  # fmt: skip
        result = CliRunner().invoke(app, args, env=ENV)
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert [line for line in out if cell_len(line) > 80] == []
    start = next(i for i, line in enumerate(out) if line.startswith("Repeated samples"))
    tables = out[start:]
    # every interval whole on its line; nothing else opens a bracket there
    assert sum(len(INTERVAL.findall(line)) for line in tables) >= 2 * 7
    for line in tables:
        assert line.count("[") == line.count("]") == len(INTERVAL.findall(line)), line
    # a number never broken: a line never ends in the middle of one ("79." / "3]")
    assert not any(re.search(r"\d\.$|^\s*\d*\.?\d\]", line.rstrip()) for line in out), out
    # every pass@k heading is shown, each over whole numbers with one decimal
    shown = " ".join(tables)
    for heading in ("pass@1", "pass@2", "pass@3", "stability", "majority"):
        assert heading in shown
    assert re.findall(r"\d+\.\d %", shown) and not re.search(r"\d\.\d\d+ %", shown)
    # the URL is never wrapped: its scheme is dropped and its start kept whole in the tables
    table_text = "\n".join(out[out.index(next(x for x in out if x.startswith("Ranking"))) :])
    assert "http://" not in table_text and "//127" not in table_text


def test_a_labels_url_is_shortened_never_its_name() -> None:
    label = terminal_label("openai-compat/m@http://10.0.0.5:8000/v1")
    assert label == "openai-compat/m@…0.0.5:8000/v1"
    assert terminal_label("m@https://h/v1") == "m@h/v1"
    assert terminal_label("openai-compat/some-long-model-name@http://127.0.0.1:1/v1") == (
        "openai-compat/some-long-model-name@…"
    )
    long_name = "anthropic/claude-3-5-sonnet-20241022-and-more"
    assert terminal_label(long_name) == long_name
    # two labels that would read alike stay whole
    alike = {
        "a": "x@http://host-one.example/v1/aaaaaaaaaaaaaaaaaaaaa/z",
        "b": "x@http://host-two.example/v1/aaaaaaaaaaaaaaaaaaaaa/z",
    }
    assert terminal_labels(alike) == alike


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("accuracy (lm-eval strict-match)", 0.2, "20.0 %"),
        ("accuracy (proctor extraction)", 0.35, "35.0 %"),
        ("valid replies", 1.0, "100.0 %"),
        ("unscored answers", 0.125, "12.5 %"),
        ("structured total (mean)", 0.2, "0.2"),
        ("ECE", 0.0312, "0.0312"),
        ("accuracy (lm-eval strict-match)", None, "—"),
    ],
)
def test_task_metrics_that_are_shares_read_as_percentages(
    name: str, value: float | None, shown: str
) -> None:
    assert _metric(name, value) == shown
