"""`python -m proctor.replay`: prints its base URL, answers from the replies file, serves
/v1/models, and stops cleanly on SIGTERM and SIGINT."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .conftest import Replay


def _replies(tmp_path: Path) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"[q1]": "one", "[q1] longer": "longest wins", "[q2]": "two"}))
    return path


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_serves_replies_and_stops_on_a_signal(
    tmp_path: Path, replay_process: Replay, stop: signal.Signals
) -> None:
    args = ("--replies", str(_replies(tmp_path)), "--model", "desk-bot", "--port", "0")
    with replay_process(*args) as (proc, url):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with httpx.Client(trust_env=False, timeout=10.0) as client:
            asked = [("[q2] what?", "two"), ("[q1] longer one", "longest wins"),
                     ("[q3]", "The stub has no scripted reply for this prompt.")]  # fmt: skip
            for prompt, want in asked:
                body = {"model": "x", "messages": [{"role": "user", "content": prompt}]}
                reply = client.post(f"{url}/chat/completions", json=body).json()
                assert reply["model"] == "desk-bot"
                assert reply["choices"][0]["message"]["content"] == want
                assert reply["choices"][0]["finish_reason"] == "stop"
            models = client.get(f"{url}/models").json()
            assert [m["id"] for m in models["data"]] == ["desk-bot"]
        proc.send_signal(stop)
        assert proc.wait(10) == 0
        assert proc.stderr is not None
        assert proc.stderr.read() == ""  # no per-request logging, no shutdown noise


def test_the_last_user_message_is_matched_and_max_tokens_cuts(
    tmp_path: Path, replay_process: Replay
) -> None:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"[a]": "A" * 40, "[b]": "bee"}))
    with (
        replay_process("--replies", str(path)) as (_, url),
        httpx.Client(trust_env=False, timeout=10.0) as client,
    ):
        messages = [
            {"role": "user", "content": "[b] earlier"},
            {"role": "assistant", "content": "bee"},
            {"role": "user", "content": [{"type": "text", "text": "now [a]"}]},
        ]
        body = {"model": "x", "messages": messages, "max_tokens": 2}
        reply = client.post(f"{url}/chat/completions", json=body).json()
        assert reply["choices"][0] == {
            "index": 0,
            "message": {"role": "assistant", "content": "A" * 8},
            "finish_reason": "length",
        }
        assert reply["usage"]["completion_tokens"] == 2
        bad = client.post(f"{url}/chat/completions", json={"messages": []})
        assert bad.status_code == 400 and "non-empty list" in bad.json()["error"]["message"]
        assert client.get(f"{url}/nowhere").status_code == 404


def test_a_streamed_request_gets_server_sent_events(tmp_path: Path, replay_process: Replay) -> None:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"[s]": "a reply longer than one sixteen-character piece"}))
    with (
        replay_process("--replies", str(path)) as (_, url),
        httpx.Client(trust_env=False, timeout=10.0) as client,
    ):
        body = {"model": "x", "stream": True, "messages": [{"role": "user", "content": "[s]"}]}
        lines = client.post(f"{url}/chat/completions", json=body).text.splitlines()
    events = [line.removeprefix("data: ") for line in lines if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "a reply longer than one sixteen-character piece"
    assert chunks[-1]["usage"]["completion_tokens"] == len(text) // 4


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('["not", "an", "object"]', "replies.json: must be a JSON object of strings"),
        ("{}", "replies.json: has no replies"),
    ],
)
def test_a_bad_replies_file_exits_2_with_a_usage_line(tmp_path: Path, text: str, says: str) -> None:
    bad = tmp_path / "replies.json"
    bad.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "proctor.replay", "--replies", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python -m proctor.replay")
    assert says in done.stderr


def test_replies_are_required() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "proctor.replay"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2 and "--replies" in done.stderr
