"""anthropic/NAME@URL and the SDKs' base-URL variables, against a loopback Anthropic Messages
server of ours (`python -m support.stub` serves POST /v1/messages, refusing what Anthropic
refuses), through the CLI a user runs: the run is stored and graded, and a provider's own key
never goes to a gateway (the stub counts the credential of every request, by fingerprint)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import proctor
from proctor.types import Sample
from support.stub import NO_CREDENTIAL, StubConfig, StubHandle, credential_key, run_stub

ANTHROPIC_SECRET = "sk-ant-SECRET-0001"
OPENAI_SECRET = "sk-openai-SECRET-0002"
GATEWAY_SECRET = "sk-gateway-SECRET-0003"
KEY_VARS = ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
            "ANTHROPIC_BASE_URL", "GATEWAY_KEY")  # fmt: skip


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def stub() -> Iterator[StubHandle]:
    with run_stub(StubConfig(seed=3)) as handle:
        yield handle


def proctor_cli(args: list[str], cwd: Path, **env: str) -> tuple[int, str]:
    full = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    full.update({"COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb", **env})
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        cwd=cwd, env=full, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def only_run(results: Path) -> dict[str, object]:
    (folder,) = (results / "runs").iterdir()
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def test_anthropic_at_url_runs_against_the_stub_and_gets_no_anthropic_key(
    stub: StubHandle, tmp_path: Path
) -> None:
    model = f"anthropic/claude-test@{stub.base_url}"
    code, out = proctor_cli(
        ["run", "arithmetic", "--limit", "6", "-m", model, "-r", "res"], tmp_path,
        ANTHROPIC_API_KEY=ANTHROPIC_SECRET, OPENAI_API_KEY=OPENAI_SECRET,
    )  # fmt: skip
    assert code == 0, out
    (m,) = only_run(tmp_path / "res")["models"]  # type: ignore[misc]
    # The stub answers arithmetic right: every answer came back through the Messages API.
    assert (m["model"], m["n_items"], m["correct"]) == (model, 6, 6)
    stats = stub.stats()
    assert stats.requests == 6 and stats.completions == 6
    assert stats.credentials == {NO_CREDENTIAL: 6}
    assert ANTHROPIC_SECRET not in out and OPENAI_SECRET not in out


def test_a_named_key_goes_to_the_gateway(tmp_path: Path) -> None:
    with run_stub(StubConfig(api_key=GATEWAY_SECRET)) as gateway:
        model = f"anthropic/claude-test@{gateway.base_url}"
        code, out = proctor_cli(
            ["run", "arithmetic", "--limit", "3", "-m", model, "-r", "res",
             "--api-key-env", "claude-test=GATEWAY_KEY"], tmp_path,
            GATEWAY_KEY=GATEWAY_SECRET, ANTHROPIC_API_KEY=ANTHROPIC_SECRET,
        )  # fmt: skip
        assert code == 0, out
        assert gateway.stats().credentials == {credential_key(GATEWAY_SECRET): 3}
        assert "GATEWAY_KEY → 127.0.0.1" in " ".join(out.split())
        # Without the named key the gateway refuses each call: a failed call, not a wrong answer.
        code, out = proctor_cli(
            ["run", "arithmetic", "--limit", "3", "-m", model, "-r", "res2",
             "--max-attempts", "1"], tmp_path, ANTHROPIC_API_KEY=ANTHROPIC_SECRET,
        )  # fmt: skip
        assert code != 0, out
        assert gateway.stats().credentials.get(credential_key(ANTHROPIC_SECRET)) is None


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_sdk_base_url_variables_point_the_official_strings_at_a_gateway(
    kind: str, stub: StubHandle, tmp_path: Path
) -> None:
    # Anthropic's SDK reads ANTHROPIC_BASE_URL without /v1, OpenAI's OPENAI_BASE_URL with it.
    root = stub.base_url.removesuffix("/v1")
    env = (
        {"ANTHROPIC_BASE_URL": root, "ANTHROPIC_API_KEY": ANTHROPIC_SECRET}
        if kind == "anthropic"
        else {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": OPENAI_SECRET}
    )
    code, out = proctor_cli(
        ["run", "arithmetic", "--limit", "4", "-m", f"{kind}/m", "-r", "res"], tmp_path, **env
    )
    assert code == 0, out
    (m,) = only_run(tmp_path / "res")["models"]  # type: ignore[misc]
    assert m["correct"] == 4
    assert stub.stats().credentials == {NO_CREDENTIAL: 4}


def test_a_system_prompt_goes_top_level_through_the_python_api(tmp_path: Path) -> None:
    # The stub refuses a "system" role inside messages, as Anthropic does (400): a correct
    # answer proves the system prompt went to the top-level field.
    @proctor.scorer(rule="The reply is the target's digits, nothing else.")
    def digits(reply: proctor.Record, sample: Sample) -> bool:
        return reply.text.strip() == sample.target

    task = proctor.define_task(
        "gateway-sums",
        samples=[Sample(id="a", input="12 + 30", target="42")],
        prompt="{input}",
        system="Reply with the number only.",
        scorer=digits,
        version="1",
    )
    with run_stub(StubConfig(answer_mode="const:42")) as stub:
        model = f"anthropic/claude-test@{stub.base_url}"
        run = proctor.evaluate(task, [model], results_dir=tmp_path)
    assert run.complete, run.records
    assert [g.outcome for g in run.grades] == ["correct"]
    assert proctor.load_run(run.id, results_dir=tmp_path).accuracy(model) == 1.0
