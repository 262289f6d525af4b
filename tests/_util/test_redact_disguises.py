"""A key a server echoes in disguise (reversed, letters spread apart by dashes, spaces,
zero-width or U+2011 characters, its case changed, look-alike letters) is scrubbed like the
plain key: the table of disguises (key_disguises.json) through `scrub`, then a run against
`python -m support.stub` echoing them, read back from proctor.db, samples.csv and report.html."""

from __future__ import annotations

import json
import os
import random
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from proctor._util import redact
from proctor._util.redact import REDACTED, register_secret, scrub
from support.stub import fetch_stats, stub_command, stub_env
from support.stub.hostile import disguised_key_forms

TABLE = json.loads((Path(__file__).parent / "cases" / "key_disguises.json").read_text("utf-8"))
ROWS: list[dict[str, Any]] = TABLE["rows"]
CANARY = "sk-proctor-CANARY-DISGUISED-3c8e51f0a7b92d64"


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's keys registered in a redaction state of this test's own (registering is
    for the life of the process, and other tests' keys must not change these rows)."""
    monkeypatch.setattr(redact, "_secrets", set())
    monkeypatch.setattr(redact, "_pattern", None)
    monkeypatch.setattr(redact, "_skeletons", (), raising=False)
    for name in ("key", "short_key", "repetitive_key"):
        register_secret(TABLE[name])


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_each_disguise_of_the_table_is_scrubbed_and_nothing_else(
    keys: None, row: dict[str, Any]
) -> None:
    expected = row["text"] if row["scrubbed"] is None else row["scrubbed"]
    assert scrub(row["text"]) == (expected, row["count"])


def test_a_disguise_across_the_chunks_a_long_reply_is_mapped_in_is_cut_exactly(keys: None) -> None:
    key = TABLE["key"]
    text = "y" * 4090 + "-".join(key) + "z" * 5000 + "\u200b".join(key[::-1]) + "."
    assert scrub(text) == ("y" * 4090 + REDACTED + "z" * 5000 + REDACTED + ".", 2)


def test_the_minimum_length_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_secrets", set())
    monkeypatch.setattr(redact, "_pattern", None)
    monkeypatch.setattr(redact, "_skeletons", ())
    fifteen, sixteen = "k3y9-ab7c-4d2e-8f5", "k3y9-ab7c-4d2e-8f5g"  # 15 and 16 letters, digits
    for key in (fifteen, sixteen):
        register_secret(key)
    assert scrub(fifteen) == (REDACTED, 1) and scrub(sixteen) == (REDACTED, 1)
    assert scrub(fifteen[::-1]) == (fifteen[::-1], 0)  # too short to search in disguise
    assert scrub(sixteen[::-1]) == (REDACTED, 1)
    assert len(redact.skeleton(sixteen)) == redact.MIN_DISGUISED_LENGTH


def test_the_skeleton_of_a_text_is_the_skeleton_of_each_character() -> None:
    # `skeleton` folds whole strings in C; `_fold` (one character) maps a match back to the
    # text: the two must agree on every character, or a span would be cut in the wrong place.
    pool = "aZ019IlOo-_ .\u200b\u200d\u2011\u00ad\ufeffаΗηёｋ𝐤éﬁßİǅΩ\u0301中\U0001d7d9²"
    rng = random.Random(27)
    text = "".join(rng.choice(pool) for _ in range(20_000))
    assert redact.skeleton(text) == "".join(redact._fold(c) for c in text)


# -- through the CLI -------------------------------------------------------------------------


@contextmanager
def stub_process(*args: str) -> Iterator[str]:
    env = stub_env({k: v for k, v in os.environ.items() if "proxy" not in k.lower()})
    proc = subprocess.Popen(
        stub_command("--port", "0", *args),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=60), "the stub printed no URL within 60 s"
        yield proc.stdout.readline().strip()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def proctor(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(var, None)
    env.update({"PROCTOR_API_KEY": CANARY, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args], env=env, capture_output=True, timeout=180
    )


def test_a_server_echoing_the_key_in_disguise_leaves_it_in_no_file(tmp_path: Path) -> None:
    results = tmp_path / "R"
    outputs: list[bytes] = []
    faults = "echo_key_disguised,echo_key_disguised_error,500"
    with stub_process("--seed", "2", "--fault-rate", "0.7", "--faults", faults) as url:
        model = f"openai-compat/stub@{url}"
        for args in (
            ("run", "arithmetic", "--n", "12", "-m", model, "-r", str(results),
             "--max-attempts", "2", "--max-failures", "0"),
            ("report", "RUN", "-r", str(results)),
            ("score", "RUN", "-r", str(results)),
        ):  # fmt: skip
            cmd = [next((results / "runs").iterdir()).name if a == "RUN" else a for a in args]
            done = proctor(*cmd)
            outputs.append(done.stdout + done.stderr)
            assert done.returncode in (0, 4), (done.stdout + done.stderr).decode()
        faults_seen = fetch_stats(url, brief=True).faults
    assert faults_seen.get("echo_key_disguised", 0) > 0, faults_seen
    assert faults_seen.get("echo_key_disguised_error", 0) > 0, faults_seen
    files = {p.name: p for p in results.rglob("*") if p.is_file()}
    assert {"proctor.db", "samples.csv", "report.html"} <= set(files)
    forms = [f.encode() for f in disguised_key_forms(f"Bearer {CANARY}")]
    for path in files.values():
        data = path.read_bytes()
        for form in forms:
            assert form not in data, f"{form!r} leaked into {path}"
    for out in outputs:
        for form in forms:
            assert form not in out, (form, out[-2000:])
    csv_text = files["samples.csv"].read_bytes()
    assert REDACTED.encode() in csv_text
    assert b"API key replaced by [redacted]" in csv_text  # the record says so
    # Nor in any disguise the stub does not know: the key's skeleton is in no file's.
    core = redact.skeleton(CANARY)
    for path in files.values():
        text = path.read_bytes().decode("utf-8", "replace")
        assert core not in redact.skeleton(text), f"the key is in {path}"


def test_a_batch_that_echoes_the_key_leaves_it_in_no_file(tmp_path: Path) -> None:
    # Batch answers were stored as the server sent them, past the boundary a live call's
    # answer passes: the plain key too.
    from support.stub.batches import BatchFaults, BatchStubApp
    from support.stub.config import StubConfig
    from support.stub.server import run_stub

    forms = [CANARY, *disguised_key_forms(f"Bearer {CANARY}")]
    reply = "const:Final answer: 1 " + " | ".join(forms)
    results = tmp_path / "R"
    app = BatchStubApp(StubConfig(answer_mode=reply), BatchFaults(end_after_s=0.2))
    with run_stub(app=app) as stub:
        done = proctor("run", "arithmetic", "--n", "3", "-m", f"openai-compat/s@{stub.base_url}",
                       "--batch", "--batch-poll", "0.2", "-r", str(results))  # fmt: skip
    assert done.returncode in (0, 4), (done.stdout + done.stderr).decode()
    files = [p for p in results.rglob("*") if p.is_file()]
    assert {"proctor.db", "samples.csv", "report.html"} <= {p.name for p in files}
    for path in files:
        data = path.read_bytes()
        for form in forms:
            assert form.encode() not in data, f"{form!r} leaked into {path}"
    csv_text = next(p for p in files if p.name == "samples.csv").read_bytes()
    assert b"API key replaced by [redacted]" in csv_text
