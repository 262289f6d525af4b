"""A run made with a recognisable fake key: the key reaches the server's Authorization header
and nowhere else — not the store (WAL included), not the run folder, not stdout or stderr —
even when the server echoes it back in its error messages or replies, escaped or base64
encoded; a key written into the model string is refused without being repeated."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from proctor._util.redact import base64_cores
from support.stub import StubConfig, run_stub

from .conftest import child_env, proctor_cmd

KEY = "sk-proctor-FAKE-KEY-7f3a9c1e5b"


class EchoingServer(BaseHTTPRequestHandler):
    """Fails every other request with an error that quotes the Authorization header back (as
    some servers do), answers the rest, and never answers one sample at all (401 echo)."""

    seen_keys: ClassVar[list[str]] = []
    count = 0
    lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length))
        auth = self.headers.get("authorization", "")
        with self.lock:
            EchoingServer.count += 1
            n = EchoingServer.count
            EchoingServer.seen_keys.append(auth)
        question = body["messages"][-1]["content"]
        if "Compare" in question:
            self._send(401, {"error": {"message": f"invalid key {auth}", "type": "auth"}})
        elif n % 2:
            self._send(500, {"error": {"message": f"upstream rejected {auth} ({KEY})"}})
        else:
            self._send(200, {
                "choices": [{"message": {"content": "Final answer: 1"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3},
            })  # fmt: skip

    def _send(self, code: int, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), EchoingServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_key_appears_in_no_output_of_a_run(tmp_path: Path, server: str) -> None:
    results = tmp_path / "R"
    env = child_env(PROCTOR_API_KEY=KEY)
    model = f"openai-compat/echo@{server}"
    outputs = []
    for args in (
        # One call at a time: the 401 then stops the model before the rest are asked (with
        # many in flight every call may be asked first, and the run ends 4, not 3).
        ("run", "arithmetic", "--limit", "12", "-m", model, "-r", str(results),
         "--max-attempts", "3", "--max-failures", "0", "--concurrency", "1"),
        ("report", "x", "-r", str(results)),
        ("list", "runs", "-r", str(results)),
    ):  # fmt: skip
        cmd = list(args)
        if args[0] == "report":
            run_id = next((results / "runs").iterdir()).name
            cmd[1] = run_id
        proc = subprocess.run(proctor_cmd(*cmd), env=env, capture_output=True, timeout=120)
        outputs.append(proc.stdout + proc.stderr)
        # The run is incomplete (401: the breaker stops the model at once): exit 3, and its
        # report says so the same way.
        assert proc.returncode == (0 if args[0] == "list" else 3), (
            proc.stdout + proc.stderr
        ).decode()

    assert any(KEY in k for k in EchoingServer.seen_keys), "the key must reach the server"
    secret = KEY.encode()
    for out in outputs:
        assert secret not in out
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "proctor.db" for p in files)
    for path in files:
        assert secret not in path.read_bytes(), f"the key leaked into {path}"
    # The failures were stored with their (redacted) reasons.
    text = b"".join(p.read_bytes() for p in files if p.name == "samples.csv")
    assert b"[redacted]" in text


CANARY = "sk-proctor-CANARY-9d2f7b31c0a84e6f"


def _forms(key: str) -> list[bytes]:
    """The canary as it may leak: as is, \\u002d-escaped, base64 inside an encoded header (each
    alignment), hex."""
    forms = [key, key.replace("-", "\\u002d"), key.encode().hex(), *base64_cores(key.encode())]
    return [f.encode() for f in forms]


def test_a_canary_key_planted_everywhere_is_found_nowhere(tmp_path: Path) -> None:
    results = tmp_path / "R"
    env = child_env(PROCTOR_API_KEY=CANARY)
    outputs: list[bytes] = []
    config = StubConfig(seed=2, fault_rate=0.7, faults=("echo_key", "echo_key_error", "500"))
    with run_stub(config) as stub:
        base = stub.base_url
        # 1. Keys written into the model string are refused, and no message repeats them.
        host = base.removeprefix("http://")
        for url in (
            f"{base}?api_key={CANARY}",
            f"{base}?x=1&access_token={CANARY}",
            f"http://user:{CANARY}@{host}",
            f"http://{CANARY}@{host}",
            f"http://u:{CANARY.replace('-', '/')}@{host}",
        ):
            proc = subprocess.run(
                proctor_cmd("run", "arithmetic", "--n", "2", "-m", f"openai-compat/m@{url}",
                            "-r", str(results)),
                env=child_env(), capture_output=True, timeout=120,
            )  # fmt: skip
            outputs.append(proc.stdout + proc.stderr)
            assert proc.returncode == 2, (proc.stdout + proc.stderr).decode()
            assert b"PROCTOR_API_KEY" in proc.stderr
        assert stub.stats().requests == 0
        assert not results.exists()
        # 2. A server that echoes the key: in 200 replies' content and model field, in error
        # bodies, as is, \u002d-escaped and base64-encoded.
        for args in (
            ("run", "arithmetic", "--n", "12", "-m", stub.model, "-r", str(results),
             "--max-attempts", "2", "--max-failures", "0"),
            ("report", "RUN", "-r", str(results)),
            ("score", "RUN", "-r", str(results)),
            ("list", "runs", "-r", str(results)),
        ):  # fmt: skip
            cmd = [next((results / "runs").iterdir()).name if a == "RUN" else a for a in args]
            proc = subprocess.run(proctor_cmd(*cmd), env=env, capture_output=True, timeout=120)
            outputs.append(proc.stdout + proc.stderr)
            assert proc.returncode in (0, 4), (proc.stdout + proc.stderr).decode()
        assert stub.stats().faults.get("echo_key", 0) > 0
        assert stub.stats().faults.get("echo_key_error", 0) > 0
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"proctor.db", "samples.csv", "report.html", "summary.md"}
    for form in _forms(CANARY):
        for out in outputs:
            assert form not in out, (form, out[-2000:])
        for path in files:
            assert form not in path.read_bytes(), f"{form!r} leaked into {path}"
    csv_text = b"".join(p.read_bytes() for p in files if p.name == "samples.csv")
    assert b"[redacted]" in csv_text
    assert b"API key replaced by [redacted]" in csv_text  # the record says so
