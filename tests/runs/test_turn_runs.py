"""Dialogue and workflow runs are ordinary runs (issue 15): through the CLI against a scripted
loopback server, their scores are in the terminal, results.json, summary.md and report.html
(and no empty answer tables are); `proctor report` shows the stored grade, `proctor score`
grades the stored turns again; `proctor run --resume RUN` goes on with an unfinished one."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dialogue.test_cases import HONEST, stage_of
from proctor.cli.app import app
from proctor.cli.dialogue import read_tree
from proctor.errors import ConfigError
from proctor.store import RunStore
from proctor.viewer import ViewerServer
from support.stub.scripted import Scripted, ScriptedServer, run_scripted
from support.viewer_http import get

ACME = read_tree("esg-acme-en")
FLOW = Path(__file__).parents[1] / "workflow" / "cases" / "review.json"
NOTE = "## Issue\nNo notice duty.\n## Revision\nAdd a notice duty.\n## Legal basis\nArticle 590."
SUMMARY = '{"clause": "14", "conflict": true, "revision": "Require notice within 5 days."}'
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
FAILING: set[str] = set()
"""Stages or steps the server answers with HTTP 500 while they are in here."""

# kind → (what it runs, a measure and its value every file must show, its exit code)
KINDS: dict[str, tuple[list[str], tuple[str, str], int]] = {
    "dialogue": (["dialogue", "esg-acme-en"], ("consistency", "1.00"), 0),
    "workflow": (["workflow", str(FLOW)], ("tool calls", "1"), 0),
}


def step_of(asked: str) -> str:
    """The workflow step or dialogue stage a question belongs to."""
    step = next((s for s in ("note", "summary") if asked.startswith(f"[{s}]")), "")
    return step or stage_of(ACME, asked)


def script(messages: list[dict[str, Any]]) -> Scripted:
    step = step_of(messages[-1]["content"])
    if step in FAILING:
        return Scripted(status=500)
    if step == "note":
        return Scripted(NOTE)
    if step == "summary":
        return Scripted(SUMMARY)
    return Scripted(HONEST["esg-acme-en"][step])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    for var in PROXIES:
        monkeypatch.delenv(var, raising=False)
    FAILING.clear()
    with run_scripted(script) as handle:
        yield handle


def _invoke(*args: str) -> Any:
    got = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert got.exception is None or isinstance(got.exception, SystemExit), got.output
    return got


def _run_id(results: Path) -> str:
    with RunStore.open(results) as store:
        (row,) = store.list_runs()
    return row.run_id


@pytest.mark.parametrize("kind", KINDS)
def test_scores_appear_in_all_four_and_no_empty_answer_tables(
    kind: str, server: ScriptedServer, tmp_path: Path
) -> None:
    command, (measure, value), code = KINDS[kind]
    results = tmp_path / "results"
    ran = _invoke(*command, "-m", server.model, "-r", str(results), "--max-attempts", "1")
    assert ran.exit_code == code, ran.output
    run_id = _run_id(results)
    shown = _invoke("report", run_id, "-r", str(results))
    assert shown.exit_code == code, shown.output
    terminal = shown.output
    folder = results / "runs" / run_id
    doc = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    html = (folder / "report.html").read_text(encoding="utf-8")
    (graded,) = doc["turns"]
    assert graded["kind"] == kind and graded["outcome"] == "complete"
    assert [measure, value] in graded["metrics"], graded["metrics"]
    assert graded["grader_version"] == f"{kind}/1"
    title = kind.capitalize()
    assert f"{title} · " in terminal and f"{title} turns · " in terminal
    assert measure in terminal and value in terminal
    assert f"| {measure} | {value} |" in summary, summary
    assert f"### {title} turns" in summary
    assert f'<section id="{kind}-scores"' in html and f'<section id="{kind}-turns"' in html
    assert measure in html and value in html
    for rendered in (terminal, summary):  # a run of turns has no answers to rank or count
        assert "Ranking" not in rendered and "Outcomes" not in rendered
    assert '<section id="ranking"' not in html and '<section id="outcomes"' not in html
    assert not list(folder.glob(f"{kind}.json"))  # no result file of its own beside the store
    listed = _invoke("list", "runs", "-r", str(results)).output
    first, headline = graded["metrics"][0]  # its headline score, not "not graded"
    assert f"{first} {headline}" in listed and "not graded" not in listed, listed


@pytest.mark.parametrize("kind", KINDS)
def test_report_reads_the_stored_grade_and_score_grades_again(
    kind: str, server: ScriptedServer, tmp_path: Path
) -> None:
    command, (measure, value), code = KINDS[kind]
    results = tmp_path / "results"
    _invoke(*command, "-m", server.model, "-r", str(results))
    run_id = _run_id(results)
    with RunStore.open(results) as store:
        ((version, grade),) = store.turn_grades(run_id).values()
        planted = {**grade, "metrics": [[measure, "planted"]]}
        store.save_turn_grade(run_id, server.model, version, planted)
    asked = len(server.asked)
    shown = _invoke("report", run_id, "-r", str(results))
    assert f"{measure}" in shown.output and "planted" in shown.output  # the stored grade, as is
    again = _invoke("score", run_id[:22], "-r", str(results))
    assert again.exit_code == code, again.output
    assert "re-graded from the store" in again.output and "planted" not in again.output
    assert len(server.asked) == asked  # grading again calls nothing
    doc = json.loads((results / "runs" / run_id / "results.json").read_text(encoding="utf-8"))
    assert [measure, value] in doc["turns"][0]["metrics"]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_run_resume_goes_on_with_an_unfinished_run(
    kind: str, traced: bool, server: ScriptedServer, tmp_path: Path
) -> None:
    command, (measure, value), _ = KINDS[kind]
    results = tmp_path / "results"
    FAILING.add("compare" if kind == "dialogue" else "summary")
    failed = _invoke(*command, "-m", server.model, "-r", str(results), "--max-attempts", "1")
    assert failed.exit_code == 4, failed.output  # a failed call: the run stays resumable
    run_id = _run_id(results)
    listed = _invoke("list", "runs", "-r", str(results))
    assert run_id[:15] in listed.output and kind in listed.output
    FAILING.clear()
    asked = len(server.asked)
    # a turn run sends no spans: --otel-endpoint is said to be ignored, never dropped silently
    traces = ["--otel-endpoint", "http://127.0.0.1:9/v1/traces"] if traced else []
    resumed = _invoke("run", "--resume", run_id, "-r", str(results), *traces)
    assert resumed.exit_code == 0, resumed.output
    assert "resumed run" in resumed.output
    assert ("sends no spans" in resumed.output) is traced, resumed.output
    again = [step_of(a) for a in server.asked[asked:]]
    # the answered turn before the failed one is not asked again; the failed one is
    assert again[0] == ("compare" if kind == "dialogue" else "summary"), again
    assert ("facts" if kind == "dialogue" else "note") not in again, again
    with RunStore.open(results) as store:
        assert store.run_status(run_id) == "complete"
        assert len(store.list_runs()) == 1
    doc = json.loads((results / "runs" / run_id / "results.json").read_text(encoding="utf-8"))
    assert doc["turns"][0]["outcome"] == "complete"
    assert [measure, value] in doc["turns"][0]["metrics"]


def test_run_resume_of_a_workflow_without_its_recording_says_how(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    _invoke("workflow", str(FLOW), "-m", server.model, "-r", str(results))
    run_id = _run_id(results)
    with RunStore.open(results) as store:  # as a run of the replay mode that noted nothing
        store.set_status(run_id, "interrupted")
        with store.transaction("forget", write=True) as db:
            db.execute(
                "UPDATE runs SET config = json_remove(json_set(config, '$.tools', 'replay'),"
                " '$.recording') WHERE id = ?",
                (run_id,),
            )
    got = CliRunner().invoke(app, ["run", "--resume", run_id, "-r", str(results)])
    assert isinstance(got.exception, ConfigError)  # `proctor` says it in a line, exit 2
    assert f"proctor workflow FILE --replay --resume {run_id}" in str(got.exception)


def test_the_viewer_lists_them_and_shows_their_turns(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    for command, _, _ in KINDS.values():
        _invoke(*command, "-m", server.model, "-r", str(results))
    with RunStore.open(results) as store:
        runs = {r.task: r.run_id for r in store.list_runs()}
    viewer = ViewerServer(results, 0, quiet=True)
    thread = threading.Thread(target=viewer.serve_forever, daemon=True)
    thread.start()
    try:
        listing = get(viewer, "/")
        for kind, run_id in runs.items():
            assert run_id in listing and kind in listing
            page = get(viewer, f"/runs/{run_id}")
            assert f'<section id="{kind}-scores"' in page
            assert f'<section id="{kind}-turns"' in page
            assert f"stored grades ({kind}/1)" in page
        assert "recommend" in get(viewer, f"/runs/{runs['dialogue']}")  # a stage of its path
        assert "summary" in get(viewer, f"/runs/{runs['workflow']}")  # a step
    finally:
        viewer.shutdown()
        viewer.server_close()
        thread.join(5)


# kind → (a requirement its grade meets, one it does not)
GATES = {
    "dialogue": ("consistency>=0.9", "contradictions>=1"),
    "workflow": ("tool calls<=1", "score>=101"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_gate_on_a_turn_run_checks_its_outcome_and_its_grade(
    kind: str, server: ScriptedServer, tmp_path: Path
) -> None:
    """`proctor gate` on a dialogue or workflow run (was: "answers not asked yet … incomplete",
    exit 3, whatever the run): its outcome, then requirements on its grade's metrics."""
    command, _, _ = KINDS[kind]
    results = tmp_path / "results"
    ran = _invoke(*command, "-m", server.model, "-r", str(results))
    assert ran.exit_code == 0, ran.output
    bare = _invoke("gate", "latest", "-r", str(results))
    assert bare.exit_code == 0, bare.output
    assert "not asked yet" not in bare.output and "gate passed" in bare.output
    met, unmet = GATES[kind]
    passed = _invoke("gate", "latest", "-r", str(results), "--require", met)
    assert passed.exit_code == 0, passed.output
    assert "pass" in passed.output and "gate passed: 1 checks" in passed.output
    failed = _invoke("gate", "latest", "-r", str(results), "--require", met, "--require", unmet)
    assert failed.exit_code == 1, failed.output
    assert "FAIL" in failed.output and "gate failed: 1 of 2 checks" in failed.output
    unknown = CliRunner().invoke(
        app, ["gate", "latest", "-r", str(results), "--require", "accuracy>=0.9"]
    )
    assert isinstance(unknown.exception, ConfigError)  # a line and exit 2 from `proctor`
    assert "unknown metric 'accuracy'" in str(unknown.exception)


@pytest.mark.parametrize("kind", KINDS)
def test_gate_on_a_turn_run_that_did_not_end_complete_never_passes(
    kind: str, server: ScriptedServer, tmp_path: Path
) -> None:
    command, _, _ = KINDS[kind]
    results = tmp_path / "results"
    FAILING.add("compare" if kind == "dialogue" else "summary")
    ran = _invoke(*command, "-m", server.model, "-r", str(results), "--max-attempts", "1")
    assert ran.exit_code == 4, ran.output
    gated = _invoke("gate", "latest", "-r", str(results))
    assert gated.exit_code == 4, gated.output  # the same code as its own command's
    assert "call_failed" in gated.output and "gate passed" not in gated.output
