"""`proctor run --otel-endpoint URL` through the CLI, against an OTLP/HTTP receiver in this
process (`support.otlp`) and the scripted loopback server: the span tree (one run span, a
sample span per answer, a call span under each), the GenAI attributes and token counts equal
to what the run's own files say, no prompt or reply text unless `--otel-content` (and then
redacted), and an unreachable collector: exit 0 and one warning."""

from __future__ import annotations

import csv
import json
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.otlp import Received, Receiver, receive_traces
from support.replayed_run import proctor
from support.store_watch import stop_when
from support.stub import StubConfig, run_stub
from support.stub.scripted import Scripted, run_scripted

from .conftest import child_env, proctor_cmd

QUESTIONS = (("q1", "Tom has 3 apples and buys 4 more. How many?", "7"),
             ("q2", "A box holds 6 eggs. How many in 3 boxes?", "18"),
             ("q3", "There are 10 birds and 4 fly away. How many stay?", "6"))  # fmt: skip
SECRET = "sk-otel-Zq8Wm3Kp5Rt7Yv2Nx4Bc6Df9Gh1Jl0"
CLIENT, INTERNAL, ERROR = 3, 1, 2


def dataset(folder: Path, extra: str = "") -> Path:
    path = folder / "questions.jsonl"
    path.write_text("".join(json.dumps({"id": i, "input": f"[{i}] {q}{extra}", "target": t})
                            + "\n" for i, q, t in QUESTIONS), encoding="utf-8")  # fmt: skip
    return path


FAILING = {"q3": True}
"""Whether the scripted server fails q3 now (the retry test mends it)."""


def right_wrong_failed(messages: list[dict[str, Any]]) -> Scripted:
    """q1 right, q2 wrong, q3 a server error (a failed call) while FAILING says so, then
    right."""
    last = messages[-1]["content"]
    if "[q3]" in last:
        return Scripted(status=500) if FAILING["q3"] else Scripted("The answer is 6.")
    return Scripted("The answer is 7." if "[q1]" in last else "The answer is 17.", tokens=(23, 6))


def all_right(messages: list[dict[str, Any]]) -> Scripted:
    asked = re.search(r"\[(q\d)\]", messages[-1]["content"])
    assert asked is not None
    return Scripted(f"The answer is {dict((i, t) for i, _, t in QUESTIONS)[asked.group(1)]}.")


def by_kind(spans: list[Received]) -> tuple[Received, list[Received], list[Received]]:
    roots = [s for s in spans if not s.parent_id]
    assert len(roots) == 1, [s.name for s in roots]
    samples = [s for s in spans if s.parent_id == roots[0].span_id]
    calls = [s for s in spans if s.parent_id and s.parent_id != roots[0].span_id]
    return roots[0], samples, calls


def run_dir(results: Path) -> Path:
    (folder,) = (results / "runs").iterdir()
    return folder


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Receiver, int]]:
    """The run, its spans received; its server stays up for the retry of its failed calls."""
    folder = tmp_path_factory.mktemp("otel")
    results = folder / "results"
    FAILING["q3"] = True
    with receive_traces() as receiver, run_scripted(right_wrong_failed) as server:
        done = proctor("run", "gsm8k", "--dataset", dataset(folder), "-m", server.model,
                       "--samples", "2", "--temperature", "0.5", "--max-attempts", "1",
                       "-r", results, "--otel-endpoint", receiver.url)  # fmt: skip
        yield results, receiver, done.returncode


def test_a_run_is_one_run_span_a_sample_span_per_answer_and_a_call_span_under_each(
    traced: tuple[Path, Receiver, int],
) -> None:
    results, receiver, code = traced
    assert code == 4  # the failed calls decide the exit code, the spans change nothing
    assert receiver.posts and set(receiver.posts) == {"/v1/traces"}
    root, samples, calls = by_kind(receiver.spans)
    assert root.name == "proctor run gsm8k" and root.kind == INTERNAL
    assert root.attributes["proctor.run.id"] == run_dir(results).name
    assert root.attributes["proctor.resumed"] is False
    assert len({s.trace_id for s in receiver.spans}) == 1
    asked = sorted((s.attributes["proctor.item.id"], s.attributes["proctor.epoch"])
                   for s in samples)  # fmt: skip
    assert asked == [(q, e) for q in ("q1", "q2", "q3") for e in (0, 1)]
    assert len(calls) == 6 and {c.parent_id for c in calls} == {s.span_id for s in samples}
    assert all(c.kind == CLIENT and c.name == "chat scripted" for c in calls)
    assert all(root.start_ns <= s.start_ns <= s.end_ns <= root.end_ns for s in samples)
    assert root.resource["service.name"] == "proctor"


def test_grades_and_token_counts_equal_the_runs_own_files(
    traced: tuple[Path, Receiver, int],
) -> None:
    results, receiver, _ = traced
    folder = run_dir(results)
    _, samples, calls = by_kind(receiver.spans)
    with (folder / "samples.csv").open(encoding="utf-8") as f:
        graded = {(r["sample_id"], int(r["epoch"])): r for r in csv.DictReader(f)}
    for s in samples:
        row = graded[(s.attributes["proctor.item.id"], s.attributes["proctor.epoch"])]
        grade = (s.attributes["proctor.grade"], s.attributes["proctor.rule"])
        assert grade == (row["outcome"], row["rule"])
    grades = sorted(s.attributes["proctor.grade"] for s in samples)
    assert grades == ["call_failed", "call_failed", "correct", "correct", "wrong", "wrong"]
    root = next(s for s in receiver.spans if not s.parent_id)
    outcomes = json.loads((folder / "results.json").read_text())["models"][0]["outcomes"]
    assert {o: root.attributes[f"proctor.outcome.{o}"] for o in outcomes} == outcomes
    assert root.attributes["proctor.graded"] == len(graded) == 6
    lines = [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()]
    stored = {(x["sample_id"], x["epoch"]): x for x in lines}
    params = json.loads((folder / "results.json").read_text())["run"]["params"]
    for c in calls:
        a = c.attributes
        line = stored[(a["proctor.item.id"], a["proctor.epoch"])]
        assert a["gen_ai.operation.name"] == "chat"
        assert a["gen_ai.provider.name"] == a["gen_ai.system"] == "openai-compat"
        assert a["gen_ai.request.model"] == "scripted"
        assert a["gen_ai.request.temperature"] == params["temperature"] == 0.5
        assert a["gen_ai.request.max_tokens"] == params["max_tokens"]
        assert a["proctor.model"] == line["model"]
        if line["status"] == "call_failed":  # no counts, no reply model: an error's type
            assert a["error.type"] == line["error"].split(":")[0] == "Transient"
            assert c.status_code == ERROR
            assert "gen_ai.usage.input_tokens" not in a and "gen_ai.response.model" not in a
            continue
        assert "error.type" not in a and c.status_code != ERROR
        assert a["gen_ai.usage.input_tokens"] == line["prompt_tokens"] == 23
        assert a["gen_ai.usage.output_tokens"] == line["completion_tokens"] == 6
        assert a["gen_ai.response.model"] == "scripted"
        assert a["gen_ai.response.finish_reasons"] == [line["finish_reason"]]
    tokens = json.loads((folder / "results.json").read_text())["models"][0]["tokens"]
    assert sum(c.attributes.get("gen_ai.usage.input_tokens", 0) for c in calls) == tokens["prompt"]


def test_no_prompt_or_reply_text_leaves_without_otel_content(
    traced: tuple[Path, Receiver, int],
) -> None:
    _, receiver, _ = traced
    said = json.dumps([s.attributes for s in receiver.spans])
    assert "How many" not in said and "The answer is" not in said
    assert "gen_ai.input.messages" not in said and "gen_ai.output.messages" not in said


def test_retrying_the_failed_calls_is_a_resumed_run_span_of_the_new_answers(
    traced: tuple[Path, Receiver, int],
) -> None:
    results, _, _ = traced
    run_id = run_dir(results).name
    FAILING["q3"] = False
    with receive_traces() as receiver:
        done = proctor("run", "--retry-errors", run_id, "-r", results,
                       "--otel-endpoint", receiver.url + "/v1/traces")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    root, samples, calls = by_kind(receiver.spans)
    assert root.attributes["proctor.run.id"] == run_id and root.attributes["proctor.resumed"]
    assert sorted((s.attributes["proctor.item.id"], s.attributes["proctor.grade"])
                  for s in samples) == [("q3", "correct"), ("q3", "correct")]  # fmt: skip
    assert len(calls) == 2


def test_content_only_when_asked_and_redacted_of_the_api_key(tmp_path: Path) -> None:
    def echo(messages: list[dict[str, Any]]) -> Scripted:
        return Scripted(f"My key is {SECRET}. The answer is 7.")

    with receive_traces() as receiver, run_scripted(echo) as server:
        done = proctor("run", "gsm8k", "--dataset", dataset(tmp_path, f" (key {SECRET})"),
                       "-m", server.model, "--limit", "1", "-r", tmp_path / "results",
                       "--otel-endpoint", receiver.url, "--otel-content",
                       env={"PROCTOR_API_KEY": SECRET})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    _, _, (call,) = by_kind(receiver.spans)
    sent = json.loads(call.attributes["gen_ai.input.messages"])
    reply = json.loads(call.attributes["gen_ai.output.messages"])
    assert SECRET not in json.dumps([s.attributes for s in receiver.spans])
    user = [m for m in sent if m["role"] == "user"][-1]
    assert "[q1] Tom has 3 apples" in user["parts"][0]["content"]
    assert "[redacted]" in user["parts"][0]["content"]
    assert reply[0]["role"] == "assistant" and reply[0]["finish_reason"] == "stop"
    assert reply[0]["parts"][0]["content"] == "My key is [redacted]. The answer is 7."


def test_an_unreachable_collector_is_one_warning_and_exit_0(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    with run_scripted(all_right) as server:
        done = proctor("run", "gsm8k", "--dataset", dataset(tmp_path), "-m", server.model,
                       "-r", tmp_path / "results", "--otel-endpoint", url)  # fmt: skip
        events = proctor("run", "gsm8k", "--dataset", dataset(tmp_path), "-m", server.model,
                         "-r", tmp_path / "again", "--otel-endpoint", url, "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    warned = [x for x in done.stderr.splitlines() if "traces" in x]
    assert len(warned) == 1 and warned[0].startswith("warning:") and url in warned[0]
    assert "Traceback" not in done.stderr
    assert events.returncode == 0, events.stderr[-2000:]
    seen = [json.loads(x) for x in events.stdout.splitlines()]
    traced = [e for e in seen if e["event"] == "warning" and "traces" in e["message"]]
    assert len(traced) == 1 and url in traced[0]["message"]
    assert seen[-1]["event"] == "run_ended" and seen[-1]["state"] == "success"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--otel-endpoint", "127.0.0.1:4318"], "expected http(s)://HOST:PORT"),
        (["--otel-endpoint", "http://user:Wq7secret@127.0.0.1:4318"], "credentials"),
        (["--otel-content"], "--otel-content needs --otel-endpoint"),
    ],
)
def test_a_bad_otel_option_is_refused_before_anything_is_asked(
    tmp_path: Path, args: list[str], said: str
) -> None:
    done = proctor("run", "arithmetic", "--n", "2", "-m", "fake/const:1", "-r",
                   tmp_path / "results", *args)  # fmt: skip
    assert done.returncode == 2 and said in " ".join(done.stderr.split())
    assert "Wq7secret" not in done.stderr and not (tmp_path / "results").exists()


MISSING_SDK = """
import sys
sys.modules["opentelemetry.exporter.otlp.proto.http.trace_exporter"] = None  # not installed
from proctor.cli.app import main
sys.argv = ["proctor", *sys.argv[1:]]
main()
"""


def test_without_the_extra_the_option_names_it_and_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MISSING_SDK, "run", "arithmetic", "--n", "2", "-m",
         "fake/const:1", "-r", str(tmp_path / "results"), "--otel-endpoint",
         "http://127.0.0.1:4318"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "pip install 'proctor-eval[otel]'" in said and "Traceback" not in said
    assert not (tmp_path / "results").exists()


def test_each_run_of_a_set_is_a_trace_and_an_unreachable_collector_one_warning(
    tmp_path: Path,
) -> None:
    set_of_two = ("run", "arithmetic", "gsm8k", "--limit", "2", "-m", "fake/const:7")
    with receive_traces() as receiver:
        done = proctor(*set_of_two, "-r", tmp_path / "results", "--otel-endpoint", receiver.url)
    assert done.returncode == 0, done.stderr[-2000:]
    roots = {s.attributes["proctor.task"]: s for s in receiver.spans if not s.parent_id}
    assert set(roots) == {"arithmetic", "gsm8k"}
    runs = {p.name for p in (tmp_path / "results" / "runs").iterdir()}
    assert {r.attributes["proctor.run.id"] for r in roots.values()} == runs
    for root in roots.values():
        tree = [s for s in receiver.spans if s.trace_id == root.trace_id]
        assert len(tree) == 1 + 2 + 2  # the run, a sample per item, a call under each
    url = f"http://127.0.0.1:{closed_port()}"
    unsent = proctor(*set_of_two, "-r", tmp_path / "again", "--otel-endpoint", url)
    assert unsent.returncode == 0, unsent.stderr[-2000:]
    (warned,) = [x for x in unsent.stderr.splitlines() if "traces" in x]  # once, not per run
    assert warned.startswith(f"warning: traces: spans not sent to {url}/v1/traces: ")
    assert "Connection refused" in warned


def test_a_sequential_comparison_is_a_session_span_per_look_and_says_a_warning_once(
    tmp_path: Path,
) -> None:
    sequential = ("run", "arithmetic", "--n", "6", "-m", "fake/const:1", "-m", "fake/const:2",
                  "--sequential", "--margin", "1pp", "--sequential-batch", "2")  # fmt: skip
    with receive_traces() as receiver:
        done = proctor(*sequential, "-r", tmp_path / "results", "--otel-endpoint", receiver.url)
    assert done.returncode == 7, done.stderr[-2000:]  # a tie, every item asked: INCONCLUSIVE
    roots = sorted((s for s in receiver.spans if not s.parent_id), key=lambda s: s.start_ns)
    assert [r.attributes["proctor.resumed"] for r in roots] == [False, True, True]  # 3 looks
    assert len({r.attributes["proctor.run.id"] for r in roots}) == 1
    samples = [s for s in receiver.spans if s.name.startswith("sample ")]
    assert len(samples) == 6 * 2  # each item of both models once, over the looks
    url = f"http://127.0.0.1:{closed_port()}"
    unsent = proctor(*sequential, "-r", tmp_path / "again", "--otel-endpoint", url)
    assert unsent.returncode == 7, unsent.stderr[-2000:]
    assert len([x for x in unsent.stderr.splitlines() if "traces" in x]) == 1


def test_a_stopped_run_sends_the_spans_of_what_it_stored_and_keeps_its_exit_code(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    with receive_traces() as receiver, run_stub(StubConfig(latency_s=0.2)) as stub:
        child = subprocess.Popen(
            proctor_cmd("run", "arithmetic", "--n", "30", "-m", stub.model, "-r", str(results),
                        "--concurrency", "2", "--otel-endpoint", receiver.url),
            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        out, err = stop_when(child, lambda: len(stored_lines(results / "runs")) >= 4, signal.SIGINT)
    assert child.returncode == 130, out + err
    assert "Traceback" not in out + err and "traces" not in err
    stored = {(x["sample_id"], x["epoch"]) for x in stored_lines(results / "runs")}
    root, samples, calls = by_kind(receiver.spans)
    assert root.attributes["proctor.run.id"] == run_dir(results).name
    assert 4 <= len(stored) < 30
    assert {(s.attributes["proctor.item.id"], s.attributes["proctor.epoch"])
            for s in samples} == stored  # fmt: skip
    assert len(calls) == len(stored)


def stored_lines(runs: Path) -> list[dict[str, Any]]:
    """The lines of the run's samples.jsonl so far (whole lines only)."""
    found = list(runs.glob("*/samples.jsonl")) if runs.exists() else []
    if not found:
        return []
    text = found[0].read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines(keepends=True) if x.endswith("\n")]


def test_an_sdk_that_cannot_start_leaves_the_run_and_its_exit_code_alone(tmp_path: Path) -> None:
    unstartable = {"OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER": "no-such"}
    done = proctor("run", "arithmetic", "--n", "2", "-m", "fake/const:7", "-r",
                   tmp_path / "results", "--otel-endpoint", "http://127.0.0.1:4318",
                   env=unstartable)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (warned,) = [x for x in done.stderr.splitlines() if "traces" in x]
    assert "RuntimeError" in warned and "no-such" in warned and "Traceback" not in done.stderr
