"""The GitHub Action (action.yml) and its sticky comment (scripts/pr_comment.py), against a
loopback fake of GitHub's REST API (support/fake_github): the first call creates the comment,
the second edits the same one; a refusal is a clear line and exit 1. The action's own Gate and
comment steps run as bash, as a runner would run them (its set-up step, a pip install, is
replaced by a PROCTOR_BIN that runs this checkout's proctor)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from support.fake_github import FakeGitHub, fake_github
from support.replayed_run import MadeRun, make_run

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "pr_comment.py"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def comment(api: FakeGitHub, body: Path, pr: int = 7) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(GITHUB_TOKEN="t0ken", GITHUB_API_URL=api.url)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--repo", "o/r", "--pr", str(pr), "--body-file", str(body)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_first_call_creates_the_comment_and_the_next_edits_it(tmp_path: Path) -> None:
    body = tmp_path / "gate.md"
    with fake_github() as api:
        # 150 comments of others first: ours must be found past the first page of 100
        api.comments[7] = [{"id": i, "body": f"looks good {i}"} for i in range(150)]
        body.write_text("### ❌ proctor gate did not pass\n", encoding="utf-8")
        first = comment(api, body)
        assert first.returncode == 0, first.stderr
        body.write_text("### ✅ proctor gate passed\n", encoding="utf-8")
        second = comment(api, body)
        assert second.returncode == 0, second.stderr
        ours = [c for c in api.comments[7] if "proctor-gate" in c["body"]]
        assert len(ours) == 1 and len(api.comments[7]) == 151
        assert "proctor gate passed" in ours[0]["body"] and "did not pass" not in ours[0]["body"]
        assert f"created comment {ours[0]['id']}" in first.stdout
        assert f"updated comment {ours[0]['id']}" in second.stdout
        methods = [m for m, _, _ in api.requests]
        assert methods.count("POST") == 1 and methods.count("PATCH") == 1
        assert {auth for _, _, auth in api.requests} == {"Bearer t0ken"}


def test_a_refusal_is_one_clear_line_and_exit_1(tmp_path: Path) -> None:
    body = tmp_path / "gate.md"
    body.write_text("x", encoding="utf-8")
    with fake_github() as api:
        api.refuse = 403
        done = comment(api, body)
    assert done.returncode == 1
    assert "HTTP 403: Resource not accessible by integration" in done.stderr
    assert "Traceback" not in done.stderr


def step(name: str) -> dict[str, object]:
    (found,) = [s for s in ACTION["runs"]["steps"] if s["name"] == name]
    return dict(found)


def run_step(name: str, values: dict[str, str], env: dict[str, str]) -> int:
    """Run one step's bash as a runner would: its `env:` with every ${{ }} replaced from
    `values` (inputs.*, github.*, steps.*), on top of `env`."""
    spec = step(name)
    assert spec["shell"] == "bash"

    def fill(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m[1]], text)

    step_env = {k: fill(str(v)) for k, v in dict(spec.get("env") or {}).items()}
    script = str(spec["run"])
    assert "${{" not in script  # values reach the shell through env only
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], env={**env, **step_env},
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    return done.returncode


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> MadeRun:
    return make_run(tmp_path_factory.mktemp("action"))


def test_the_actions_gate_and_comment_steps_keep_one_comment(made: MadeRun, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    proctor_bin = bin_dir / "proctor"
    proctor_bin.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m proctor "$@"\n')
    proctor_bin.chmod(0o755)
    job_summary, outputs = tmp_path / "job-summary.md", tmp_path / "outputs"
    base = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    defaults = {f"inputs.{k}": str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    with fake_github() as api:
        env = {**base, "PROCTOR_BIN": str(proctor_bin), "RUNNER_TEMP": str(tmp_path),
               "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(job_summary),
               "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_REPOSITORY": "o/r",
               "GITHUB_API_URL": api.url, "COLUMNS": "200"}  # fmt: skip
        for require, code, verdict in (("accuracy>=0.9\n  n>=6\n", 1, "did not pass"),
                                       ("n>=6", 0, "passed")):  # fmt: skip
            outputs.write_text("", encoding="utf-8")
            values = {**defaults, "inputs.run": made.run_id, "inputs.require": require,
                      "inputs.results-dir": str(made.results),
                      "inputs.junit": str(tmp_path / "gate.xml"),
                      "inputs.github-token": "t0ken", "github.event.pull_request.number": "7"}
            assert run_step("Gate", values, env) == 0  # the step itself never fails the job
            out = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
            assert out["exit-code"] == str(code)
            values["steps.gate.outputs.summary"] = out["summary"]
            values["steps.gate.outputs.exit-code"] = out["exit-code"]
            assert run_step("Sticky pull-request comment", values, env) == 0
            assert run_step("Fail as the gate did", values, env) == code
            (ours,) = api.comments[7]
            assert f"proctor gate {verdict}" in ours["body"]
            assert (tmp_path / "gate.xml").is_file()
    text = job_summary.read_text(encoding="utf-8")
    assert "proctor gate did not pass" in text and "proctor gate passed" in text
