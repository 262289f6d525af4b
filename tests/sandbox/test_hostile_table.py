"""The table of hostile replies (cases/hostile.json), through the public path: a loopback
server (`python -m proctor.replay --replies`) plays each reply to `proctor run
humaneval|mbpp --dataset`, and the run's samples.csv must show every wrong solution not
correct, with the outcome and the defence its row names; the controls (right answers) stay
correct. Then the run is re-graded (`proctor score`), reported (`proctor report`), gated
(`proctor gate`) and viewed (`proctor view`'s pages) with the sandbox made to fail if it is
ever started: showing a run must not run its code. No `proctor-sandbox-*` folder is left, and
the host's socket and TCP servers that would hand out answers saw no one."""

from __future__ import annotations

import csv
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proctor.sandbox import detect

TABLE = json.loads((Path(__file__).with_name("cases") / "hostile.json").read_text())
needs_namespaces = pytest.mark.skipif(
    detect().mode == "none", reason=f"no namespaces here: {detect().reason}"
)


@dataclass
class Host:
    """Servers on the host that would hand out the answer to whoever reached them."""

    sock: str
    port: int
    contacts: list[str]


@pytest.fixture(scope="module")
def host() -> Iterator[Host]:
    path = os.path.join(tempfile.gettempdir(), f"proctor-hostile-{uuid.uuid4().hex[:8]}.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(path)
    os.chmod(path, 0o777)
    tcp = socket.create_server(("127.0.0.1", 0))
    contacts: list[str] = []
    stop = threading.Event()

    def serve(server: socket.socket, name: str) -> None:
        server.listen()
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            contacts.append(name)
            conn.sendall(b"13")
            conn.close()

    threads = [
        threading.Thread(target=serve, args=(s, n)) for s, n in ((unix, "unix"), (tcp, "tcp"))
    ]
    for t in threads:
        t.start()
    try:
        yield Host(path, tcp.getsockname()[1], contacts)
    finally:
        stop.set()
        for t in threads:
            t.join()
        unix.close()
        tcp.close()
        os.unlink(path)


def _fn(case: dict[str, Any]) -> str:
    return f"{case['id'].replace('-', '_')}_{case['problem']}"


def _write_inputs(task: str, folder: Path, host: Host) -> dict[str, dict[str, Any]]:
    """The dataset and the replies file for `task`'s cases; the cases by sample id."""
    rows: list[dict[str, Any]] = []
    replies: dict[str, str] = {}
    by_id: dict[str, dict[str, Any]] = {}
    for case in TABLE["cases"]:
        problem = TABLE["problems"][case["problem"]]
        if problem["task"] != task:
            continue
        fn = _fn(case)
        if task == "humaneval":
            prompt = problem["prompt"].replace("{fn}", fn)
            canonical = prompt + problem["canonical"]
            meta = {"entry_point": fn, "test": problem["test"]}
            row = {"id": case["id"], "input": prompt, "target": canonical, "metadata": meta}
            marker = f"def {fn}("
        else:
            tests = [t.replace("{fn}", fn) for t in problem["tests"]]
            canonical = problem["canonical"].replace("{fn}", fn)
            meta = {"test_list": json.dumps(tests), "test_setup_code": ""}
            text = problem["text"].replace("{fn}", fn)
            row = {"id": case["id"], "input": text, "target": canonical, "metadata": meta}
            marker = f"function {fn} "
        row["answer_type"] = "text"
        code = canonical if case["code"] is None else "\n".join(case["code"])
        code = code.replace("{fn}", fn).replace("{sock}", host.sock)
        code = code.replace("{port}", str(host.port))
        rows.append(row)
        replies[marker] = f"```python\n{code}\n```\n"
        by_id[case["id"]] = case
    (folder / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / f"{task}-replies.json").write_text(json.dumps(replies))
    return by_id


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str
    left: list[str]
    """`proctor-sandbox-*` folders of this proctor process left in the temporary folder."""


def _proctor(*args: str, cwd: Path) -> Done:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    out, err = proc.communicate(timeout=900)
    pattern = os.path.join(tempfile.gettempdir(), f"proctor-sandbox-{proc.pid}-*")
    return Done(proc.returncode, out, err, glob.glob(pattern))


def _replay(replies: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "proctor.replay", "--port", "0", "--replies", str(replies)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip


def _samples(results: Path) -> tuple[str, dict[str, dict[str, str]]]:
    (run_dir,) = (results / "runs").iterdir()
    with (run_dir / "samples.csv").open(newline="", encoding="utf-8") as f:
        return run_dir.name, {row["sample_id"]: row for row in csv.DictReader(f)}


def _check_rows(by_id: dict[str, dict[str, Any]], rows: dict[str, dict[str, str]]) -> list[str]:
    """Every case's outcome and defence, as table lines; failures raised together."""
    problems, lines = [], []
    for cid, case in by_id.items():
        row = rows[cid]
        outcome, why = row["outcome"], row["explanation"]
        if outcome not in case["outcomes"]:
            problems.append(f"{cid}: {outcome} (wanted {case['outcomes']}): {why[:300]}")
        if case["class"] != "control" and outcome == "correct":
            problems.append(f"{cid}: a wrong solution was graded CORRECT: {why[:300]}")
        if case["mentions"] and not any(m in why for m in case["mentions"]):
            problems.append(f"{cid}: none of {case['mentions']} in: {why[:300]}")
        lines.append(
            f"| {cid} | {case['class']} | {case['trick']} | {outcome} | {case['defence']} |"
        )
    assert problems == [], "\n".join(problems)
    return lines


@needs_namespaces
@pytest.mark.parametrize("task", ["humaneval", "mbpp"])
def test_no_hostile_reply_is_graded_correct_through_the_public_path(
    task: str, host: Host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_id = _write_inputs(task, tmp_path, host)
    replay = _replay(tmp_path / f"{task}-replies.json")
    try:
        assert replay.stdout is not None
        url = replay.stdout.readline().strip()
        results = tmp_path / "results"
        done = _proctor(
            "run", task, "--dataset", str(tmp_path / f"{task}.jsonl"),
            "-m", f"openai-compat/hostile@{url}", "--max-tokens", "8192",
            "--results-dir", str(results), cwd=tmp_path,
        )  # fmt: skip
    finally:
        replay.terminate()
        replay.wait(10)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    run_id, rows = _samples(results)
    lines = _check_rows(by_id, rows)
    print("\n| case | class | trick | outcome | defence |\n|---|---|---|---|---|")
    print("\n".join(lines))
    assert host.contacts == []
    assert done.left == []

    # re-graded: the same outcomes, nothing left behind
    again = _proctor("score", run_id, "--results-dir", str(results), cwd=tmp_path)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    _check_rows(by_id, _samples(results)[1])
    assert again.left == []

    # shown: `proctor report` and the viewer read the stored grades; starting a sandbox fails
    from typer.testing import CliRunner

    from proctor.cli.app import app
    from proctor.sandbox import process

    def no_code_on_a_read(*args: object, **kwargs: object) -> object:
        raise AssertionError("showing a run started the sandbox")

    monkeypatch.setattr(process, "_run", no_code_on_a_read)
    shown = CliRunner().invoke(app, ["report", run_id, "--results-dir", str(results)])
    assert shown.exit_code == 0, shown.output[-2000:]
    gated = CliRunner().invoke(
        app, ["gate", run_id, "--require", "accuracy>=0.99", "--results-dir", str(results)]
    )
    assert gated.exit_code == 1 and not isinstance(gated.exception, AssertionError), gated.output
    _check_rows(by_id, _samples(results)[1])
    _view(results, run_id, sorted(by_id))


def _view(results: Path, run_id: str, ids: list[str]) -> None:
    import http.client
    from urllib.parse import quote

    from proctor.viewer import HOST, ViewerServer

    server = ViewerServer(results, 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for path in (f"/runs/{quote(run_id, safe='')}", f"/runs/{quote(run_id, safe='')}/samples"):
            conn = http.client.HTTPConnection(HOST, server.port, timeout=60)
            conn.request("GET", path, headers={"Host": f"{HOST}:{server.port}"})
            response = conn.getresponse()
            body = response.read().decode("utf-8")
            conn.close()
            assert response.status == 200, body[:500]
            assert all(cid in body for cid in ids)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
