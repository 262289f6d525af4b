"""`proctor run --json` through the CLI: every stdout line parses as one JSON event (nothing
else is on stdout; the report goes to stderr), `run_ended` is last and carries the exit code
the command exits with, whatever ends it: success, failed calls, a refused option."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from proctor.replay import serve_replies
from support.replayed_run import proctor

REPLIES = (("[q1]", "The answer is 7."), ("[q2]", "The answer is 17."), ("[q3]", "No idea."))


def events(stdout: str) -> list[dict[str, Any]]:
    lines = stdout.splitlines()
    assert lines, "no events on stdout"
    parsed = [json.loads(line) for line in lines]  # every line is JSON, or this fails
    assert all(isinstance(e, dict) and "event" in e and "time" in e for e in parsed)
    assert parsed[-1]["event"] == "run_ended"
    assert [e["event"] for e in parsed].count("run_ended") == 1
    return parsed


def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    rows = [("q1", "3 + 4?", "7"), ("q2", "6 × 3?", "18"), ("q3", "10 − 4?", "6")]
    path.write_text("".join(json.dumps({"id": i, "input": f"[{i}] {q}", "target": t}) + "\n"
                            for i, q, t in rows), encoding="utf-8")  # fmt: skip
    return path


def test_a_run_is_events_on_stdout_and_its_report_on_stderr(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with serve_replies(REPLIES, "alpha") as server:
        model = f"openai-compat/alpha@{server.base_url}"
        done = proctor("run", "gsm8k", "--dataset", dataset(tmp_path), "-m", model,
                       "--samples", "2", "-r", results, "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    seen = events(done.stdout)
    kinds = [e["event"] for e in seen]
    assert kinds[0] == "warning" and "temperature 0" in seen[0]["message"]
    (started,) = [e for e in seen if e["event"] == "run_started"]
    assert started["models"] == [model] and started["planned"][model] == {"stored": 0, "to_ask": 6}
    stored = [e for e in seen if e["event"] == "answer_stored"]
    assert sorted((e["sample_id"], e["epoch"]) for e in stored) == [
        (q, n) for q in ("q1", "q2", "q3") for n in (0, 1)
    ]
    assert all(e["run_id"] == started["run_id"] and e["status"] == "ok" for e in stored)
    progress = [e for e in seen if e["event"] == "progress"]
    assert [p["done"] for p in progress] == [1, 2, 3, 4, 5, 6]
    assert (progress[-1]["correct"], progress[-1]["scored"], progress[-1]["total"]) == (2, 6, 6)
    assert kinds.index("run_started") < kinds.index("answer_stored") < kinds.index("progress")
    ended = seen[-1]
    assert (ended["exit_code"], ended["state"], ended["run_id"]) == (0, "success",
                                                                     started["run_id"])
    names = {Path(f).name for f in ended["files"]}
    assert {"results.json", "samples.csv", "samples.jsonl", "report.html"} <= names
    assert "Accuracy" in done.stderr or "accuracy" in done.stderr  # the report, for people


def test_failed_calls_are_events_and_the_end_says_4(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    model = f"openai-compat/gone@http://127.0.0.1:{port}/v1"
    done = proctor("run", "arithmetic", "--n", "3", "-m", model, "--max-attempts", "1",
                   "-r", tmp_path / "results", "--json")  # fmt: skip
    assert done.returncode == 4, done.stderr[-2000:]
    seen = events(done.stdout)
    stored = [e for e in seen if e["event"] == "answer_stored"]
    assert len(stored) == 3 and all(e["status"] == "call_failed" and e["error"] for e in stored)
    warnings = [e for e in seen if e["event"] == "warning"]
    assert any(w.get("model") == model and "3 failed calls" in w["message"] for w in warnings)
    assert seen[-1]["exit_code"] == 4 and seen[-1]["state"] == "calls_failed"


def test_a_refused_option_is_one_run_ended_line_with_exit_2(tmp_path: Path) -> None:
    done = proctor("run", "arithmetic", "--max-attempts", "0", "-r", tmp_path, "--json")
    assert done.returncode == 2
    (ended,) = events(done.stdout)
    assert (ended["exit_code"], ended["state"], ended["run_id"]) == (2, "usage_error", None)
    assert "--max-attempts" in ended["error"]
    assert not (tmp_path / "proctor.db").exists()
