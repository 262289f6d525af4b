"""A malformed dataset stops the run before any model is called, with an error naming the file,
line and field, and leaves no run behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import child_env, proctor_cmd

GOOD = '{"id": "a", "input": "2 + 3", "target": "5"}\n'

CASES = [
    ("bad-json.jsonl", GOOD + '{"id": "b", "input": "1 + 1", "target": "2"\n', ":2:"),
    ("dup.jsonl", GOOD + GOOD, "duplicate"),
    ("missing.jsonl", GOOD + '{"id": "b", "input": "1 + 1"}\n', "target"),
    ("wrong-type.jsonl", '{"id": 7, "input": "1 + 1", "target": "2"}\n', "id"),
    ("empty.jsonl", "", "no samples"),
    ("broken.csv", 'id,input,target\na,"2 + 3,5\n', "broken.csv"),
]


@pytest.mark.parametrize(("name", "content", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_bad_dataset_stops_before_any_call(
    tmp_path: Path, name: str, content: str, fragment: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with run_stub(StubConfig()) as stub:
        proc = subprocess.run(
            proctor_cmd("run", "--dataset", str(path), "-m", stub.model, "-r", str(tmp_path / "R")),
            env=child_env(),
            capture_output=True,
            timeout=60,
        )
        requests = stub.stats().requests
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "error:" in err and "Traceback" not in err
    assert name in err and fragment in err, err
    assert requests == 0
    assert not (tmp_path / "R" / "proctor.db").exists()


def test_unreachable_endpoint_is_a_clear_message(tmp_path: Path) -> None:
    proc = subprocess.run(
        proctor_cmd("run", "arithmetic", "--limit", "20", "-m",
                    "openai-compat/nobody@http://127.0.0.1:9/v1", "-r", str(tmp_path / "R"),
                    "--max-attempts", "2"),
        env=child_env(), capture_output=True, timeout=120,
    )  # fmt: skip
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 3, err  # incomplete: a gate must not read it as finished
    assert "Traceback" not in out + err
    assert "was stopped" in out and "connection refused at 127.0.0.1:9" in out
    assert "is incomplete" in err and "--retry-errors" in err
