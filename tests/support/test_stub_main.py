"""`python -m support.stub`: prints its base URL, serves, and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from support.stub import fetch_stats, stub_command, stub_env


@contextmanager
def _stub_process(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    env = stub_env({k: v for k, v in os.environ.items() if "proxy" not in k.lower()})
    proc = subprocess.Popen(
        stub_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=30), "the stub printed no URL within 30 s"
        yield proc, proc.stdout.readline().strip()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_cli_serves_and_stops_on_sigterm() -> None:
    with _stub_process("--port", "0", "--seed", "3", "--model", "cli-stub") as (proc, url):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with httpx.Client(trust_env=False, timeout=10.0) as client:
            body = {"model": "x", "messages": [{"role": "user", "content": "Problem: 12 × 12"}]}
            reply = client.post(f"{url}/chat/completions", json=body).json()
        assert reply["model"] == "cli-stub"
        assert reply["choices"][0]["message"]["content"].endswith("Final answer: 144")
        stats = fetch_stats(url)
        assert (stats.requests, stats.completions) == (1, 1)
        assert len(stats.by_body) == len(stats.by_prompt) == 1
        brief = fetch_stats(url, brief=True)
        assert (brief.requests, brief.by_body, brief.by_prompt) == (1, {}, {})
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert proc.stderr is not None
        assert proc.stderr.read() == ""  # no per-request logging, no shutdown noise


def test_cli_injects_the_faults_it_is_given() -> None:
    args = ("--fault-rate", "1", "--faults", "503", "--latency", "0.01")
    with _stub_process(*args) as (_, url), httpx.Client(trust_env=False, timeout=10.0) as client:
        body = {"model": "x", "messages": [{"role": "user", "content": "1 + 1"}]}
        assert client.post(f"{url}/chat/completions", json=body).status_code == 503
        assert fetch_stats(url).faults == {"503": 1}


def test_cli_rejects_unknown_fault_kinds() -> None:
    done = subprocess.run(
        stub_command("--faults", "418"),
        env=stub_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "unknown fault kinds" in done.stderr


def test_cli_names_hostile_replies_and_tool_refusal() -> None:
    from support.stub.__main__ import parse_args

    config, _ = parse_args(
        ["--fault-rate", "1", "--faults", "gzip_bomb,deep,echo_key", "--refuse-tools",
         "--bomb-bytes", "1048576", "--huge-bytes", "2048"]
    )  # fmt: skip
    assert config.faults == ("gzip_bomb", "deep", "echo_key")
    assert config.refuse_tools and (config.bomb_bytes, config.huge_bytes) == (1048576, 2048)
    default, _ = parse_args([])
    assert not set(default.faults) & {"gzip_bomb", "deep", "echo_key", "surrogate"}


def test_cli_replays_scripted_replies(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"[q1]": "one", "[q1] longer": "longest wins", "[q2]": "two"}))
    with (
        _stub_process("--replies", str(replies)) as (_, url),
        httpx.Client(trust_env=False, timeout=10.0) as client,
    ):
        asked = [("[q2] what?", "two"), ("[q1] longer one", "longest wins"),
                 ("[q3]", "The stub has no scripted reply for this prompt.")]  # fmt: skip
        for prompt, want in asked:
            body = {"model": "x", "messages": [{"role": "user", "content": prompt}]}
            reply = client.post(f"{url}/chat/completions", json=body).json()
            assert reply["choices"][0]["message"]["content"] == want


def test_cli_rejects_a_bad_replies_file(tmp_path: Path) -> None:
    bad = tmp_path / "replies.json"
    bad.write_text('["not", "an", "object"]')
    done = subprocess.run(
        stub_command("--replies", str(bad)),
        env=stub_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "replies.json: must be a JSON object of strings" in done.stderr
