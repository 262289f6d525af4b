"""`proctor dialogue` and `proctor workflow` on the shipped examples with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.tools.toolbox import ReplayMissing
from support.turn_results import graded_result

runner = CliRunner()


def test_dialogue_cli_writes_json(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["dialogue", "esg-acme-en", "-m", "fake/const:Receivable days: 120", "-r", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    data = graded_result(tmp_path)
    assert data["path"] == ["facts", "compare", "open", "recommend"]
    assert data["fact_graph"][0]["value"] == "120"


def test_workflow_cli_replays_the_shipped_recording(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["workflow", "market-brief-zh", "--replay", "-m", "fake/const:x", "-r", str(tmp_path)],
    )
    assert result.exit_code == 6, result.output  # "x" is no JSON object: invalid_output
    data = graded_result(tmp_path)
    assert data["outcome"] == "invalid_output" and data["tool_calls"] == 2
    assert data["outputs"]["growth"] == "15.44715447"


def test_workflow_cli_replay_without_recording_fails_loudly(tmp_path: Path) -> None:
    flow = tmp_path / "f.json"
    flow.write_text(
        json.dumps(
            {
                "id": "f",
                "budget": {"max_tokens": 100, "max_wall_s": 10, "max_tool_calls": 1},
                "steps": [
                    {
                        "id": "c",
                        "kind": "tool",
                        "tool": "calculator",
                        "args": {"expression": "1+1"},
                        "output": "two",
                    }
                ],
                "required": [{"output": "two", "check": "nonempty"}],
            }
        )
    )
    (tmp_path / "f.replay.jsonl").write_text("")
    with pytest.raises(ReplayMissing):
        runner.invoke(
            app,
            ["workflow", str(flow), "--replay", "-m", "fake/const:x", "-r", str(tmp_path)],
            catch_exceptions=False,
        )
    result = runner.invoke(
        app, ["workflow", str(flow), "--record", "-m", "fake/const:x", "-r", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert '"answer": "2"' in (tmp_path / "f.replay.jsonl").read_text()


def test_dialogue_and_workflow_runs_are_listed_and_regraded(tmp_path: Path) -> None:
    from proctor.viewer.runs import load_run

    for args in (
        ["dialogue", "esg-acme-en", "-m", "fake/const:Receivable days: 120"],
        ["workflow", "market-brief-zh", "--replay", "-m", "fake/const:x"],
    ):
        runner.invoke(app, [*args, "-r", str(tmp_path)])
    listed = runner.invoke(app, ["list", "runs", "-r", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    assert "dialogue" in listed.output and "workflow" in listed.output
    from proctor.store import RunStore

    with RunStore.open(tmp_path) as store:
        rows = {r.task: r for r in store.list_runs()}
        assert rows["dialogue"].n_records == 4 and rows["dialogue"].n_samples == 5
        assert rows["workflow"].n_records == 4  # 2 tool and 2 model steps
        for row in rows.values():
            load_run(store, row.run_id)  # the viewer does not trip on a run of turns
    for task, row in rows.items():
        for command in ("score", "report"):
            again = runner.invoke(app, [command, row.run_id[:20], "-r", str(tmp_path)])
            # the code the run's own command gave: the workflow's "x" is no JSON object
            assert again.exit_code == (6 if task == "workflow" else 0), again.output
            said = "re-graded from the store" if command == "score" else "its stored grade"
            assert said in again.output
        assert not (tmp_path / "runs" / row.run_id / f"{task}.json").exists()  # no file of its own
