"""One of each: one default per setting (the docs say what the code uses), one run-id
resolver (`latest`, prefixes and folders, in every command that takes a RUN), and help that says
what it means."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.executors import DEFAULT_MAX_FAILURES, AskSettings
from proctor.runs.plan import Calling
from proctor.store import RunStore
from support.stub.scripted import Scripted, run_scripted

# where the documentation states the breaker's default (it moved there from the README)
CALLING = Path(__file__).resolve().parents[2] / "docs" / "calling.md"
ENV = {"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}


def _cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_max_failures_has_one_default_and_the_docs_say_it() -> None:
    """The 25 (RunPlan, README) vs 10 (AskSettings) disagreement of issue 15."""
    assert Calling.__dataclass_fields__["breaker_threshold"].default == DEFAULT_MAX_FAILURES
    assert AskSettings.__dataclass_fields__["breaker_threshold"].default == DEFAULT_MAX_FAILURES
    _, help_text = _cli("run", "--help")
    # the help's words, as one line: it wraps at the terminal's width
    help_text = " ".join(help_text.split())
    assert re.search(rf"--max-failures <int> [^-]*\[default: {DEFAULT_MAX_FAILURES}\]", help_text)
    said = re.search(r"after `--max-failures`\s+failed attempts in a row \(default (\d+)\)",
                     CALLING.read_text(encoding="utf-8"))  # fmt: skip
    assert said is not None and int(said[1]) == DEFAULT_MAX_FAILURES


def test_gate_help_names_the_gate_table() -> None:
    _, help_text = _cli("gate", "--help")
    assert "Default: the [gate] of the suite's config." in " ".join(help_text.split())


def test_latest_a_prefix_and_a_folder_name_the_same_run_everywhere(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_scripted(lambda messages: Scripted("Final answer: 7")) as server:
        models = [server.model, f"openai-compat/other@{server.base_url}"]
        code, _ = _cli("run", "arithmetic", "--n", 6, "-m", models[0], "-m", models[1],
                       "-r", results)  # fmt: skip
    assert code == 0
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
        run_id = row.run_id
        assert store.resolve("latest") == store.resolve(run_id[:-3]) == run_id
        assert store.resolve(str(results / "runs" / run_id)) == run_id
    for ref in ("latest", run_id[:-3], str(results / "runs" / run_id)):
        assert _cli("report", ref, "-r", results)[0] == 0
        assert _cli("gate", ref, "--require", "accuracy>=0", "-r", results)[0] == 0
        # two models in one run: RUN_B may be omitted, as compare's help says
        code, out = _cli("compare", ref, "-r", results)
        assert code == 0 and "not distinguishable" in out, out
