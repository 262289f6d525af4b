"""Keys go only to the host they belong to, proved at loopback stubs that count the credential
each request carries (by fingerprint), through the CLI a user runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.errors import ConfigError
from proctor.runs.state import EXIT_CALLS_FAILED, EXIT_INCOMPLETE
from support.stub import NO_CREDENTIAL, StubConfig, StubHandle, credential_key, run_stub

KEY_VARS = ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "A_KEY", "B_KEY", "K")
WIDE = {"COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}
OPENAI_SECRET = "sk-openai-SECRET-0001"
A_SECRET = "sk-host-a-SECRET-0002"
B_SECRET = "sk-host-b-SECRET-0003"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def squash(text: str) -> str:
    return " ".join(_ANSI.sub("", text).split())


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def stubs() -> Iterator[tuple[StubHandle, StubHandle]]:
    """Two hosts (two ports on loopback): A wants A_SECRET, B wants B_SECRET."""
    with ExitStack() as stack:
        a = stack.enter_context(run_stub(StubConfig(api_key=A_SECRET)))
        b = stack.enter_context(run_stub(StubConfig(api_key=B_SECRET)))
        yield a, b


def model(name: str, stub: StubHandle) -> str:
    return f"openai-compat/{name}@{stub.base_url}"


def run(*args: str) -> Result:
    return CliRunner().invoke(
        app, ["run", "arithmetic", "--limit", "4", "--max-failures", "2", *args], env=WIDE
    )


def seen(stub: StubHandle) -> dict[str, int]:
    return stub.stats().credentials


def files_text(root: Path) -> str:
    """Every file proctor wrote (the store included), as text."""
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()
    )


def test_only_openai_key_set_sends_no_key_and_says_how(
    stubs: tuple[StubHandle, StubHandle], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a, _ = stubs
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    m = model("mine", a)
    code, out = proctor(["run", "arithmetic", "--limit", "4", "-m", m], tmp_path)
    assert seen(a) == {NO_CREDENTIAL: seen(a)[NO_CREDENTIAL]} and seen(a)[NO_CREDENTIAL] >= 1
    assert credential_key(OPENAI_SECRET) not in seen(a)
    assert code in (EXIT_CALLS_FAILED, EXIT_INCOMPLETE), out  # 401s: never 0
    assert f"no key → 127.0.0.1:{a.port}: {m}" in out
    assert "OPENAI_API_KEY goes only to api.openai.com" in out
    assert "--api-key-env mine=MINE_API_KEY" in out  # the 401 says how to give one
    assert OPENAI_SECRET not in out and OPENAI_SECRET not in files_text(tmp_path)


def test_two_hosts_get_two_keys_from_two_named_variables(
    stubs: tuple[StubHandle, StubHandle], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a, b = stubs
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    monkeypatch.setenv("A_KEY", A_SECRET)
    monkeypatch.setenv("B_KEY", B_SECRET)
    ma, mb = model("a", a), model("b", b)
    result = run("-m", ma, "-m", mb, "--api-key-env", "a=A_KEY", "--api-key-env", f"{mb}=B_KEY")
    out = squash(result.output)
    assert result.exit_code == 0, out
    assert seen(a) == {credential_key(A_SECRET): 4}
    assert seen(b) == {credential_key(B_SECRET): 4}
    assert f"keys A_KEY → 127.0.0.1:{a.port}: {ma} (named with --api-key-env)" in out
    assert f"B_KEY → 127.0.0.1:{b.port}: {mb} (named with --api-key-env)" in out
    text = out + files_text(tmp_path)
    for secret in (OPENAI_SECRET, A_SECRET, B_SECRET):
        assert secret not in text


def proctor(args: list[str], cwd: Path) -> tuple[int, str]:
    """A real `proctor` process (for its exit code), in this environment, wide and plain."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(WIDE)
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done.returncode, squash(done.stdout + done.stderr)


@pytest.mark.parametrize(
    ("env", "named", "fragment"),
    [
        ({"PROCTOR_API_KEY": A_SECRET}, [], "PROCTOR_API_KEY is set and this run talks to 2 hosts"),
        ({"K": A_SECRET}, ["a=K", "b=K"], "K would go to 2 hosts"),
    ],
)
def test_a_shared_variable_with_two_hosts_is_refused_before_any_call(
    stubs: tuple[StubHandle, StubHandle],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    env: dict[str, str],
    named: list[str],
    fragment: str,
) -> None:
    a, b = stubs
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    flags = [x for n in named for x in ("--api-key-env", n)]
    args = ["run", "arithmetic", "--limit", "4", "-m", model("a", a), "-m", model("b", b), *flags]
    code, out = proctor(args, tmp_path)
    assert code == 2, out
    assert fragment in out and "--api-key-env a=A_API_KEY --api-key-env b=B_API_KEY" in out
    estimate = run("-m", model("a", a), "-m", model("b", b), *flags, "--estimate")
    assert isinstance(estimate.exception, ConfigError) and fragment in str(estimate.exception)
    assert A_SECRET not in out + str(estimate.exception)
    assert a.stats().requests == b.stats().requests == 0
    assert not (tmp_path / "proctor-results" / "proctor.db").exists()  # no run was created


def test_estimate_lists_each_models_variable_by_name(
    stubs: tuple[StubHandle, StubHandle], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = stubs
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    monkeypatch.setenv("A_KEY", A_SECRET)
    result = run(
        "-m", model("a", a), "-m", model("b", b), "-m", "openai/gpt-4o", "-m", "fake/const:1",
        "--api-key-env", "a=A_KEY", "--estimate",
    )  # fmt: skip
    out = squash(result.output)
    assert result.exit_code == 0, out
    rows = {line.split("│")[1].strip(): line.split("│")[-2].strip() for line in
            _ANSI.sub("", result.output).splitlines() if line.count("│") > 5}  # fmt: skip
    assert rows == {
        model("a", a): "A_KEY",
        model("b", b): "no key",
        "openai/gpt-4o": "OPENAI_API_KEY",
        "fake/const:1": "—",
    }
    assert a.stats().requests == b.stats().requests == 0
    assert A_SECRET not in out and OPENAI_SECRET not in out


def test_a_judge_is_one_more_host(
    stubs: tuple[StubHandle, StubHandle], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = stubs
    monkeypatch.setenv("PROCTOR_API_KEY", A_SECRET)
    args = ("-m", model("a", a), "--judge", model("j", b))
    refused = run(*args)
    assert isinstance(refused.exception, ConfigError), refused.output
    assert "PROCTOR_API_KEY is set and this run talks to 2 hosts" in str(refused.exception)
    assert a.stats().requests == b.stats().requests == 0

    monkeypatch.setenv("A_KEY", A_SECRET)
    monkeypatch.setenv("B_KEY", B_SECRET)
    result = run(*args, "--api-key-env", "a=A_KEY", "--api-key-env", "j=B_KEY")
    assert result.exit_code == 0, result.output
    assert seen(a) == {credential_key(A_SECRET): 4}
    assert set(seen(b)) == {credential_key(B_SECRET)}  # the judge: only its named variable
    b.reset()
    judged = CliRunner().invoke(
        app, ["judge", "latest", "--judge", model("j2", b), "--api-key-env", "j2=B_KEY"], env=WIDE
    )
    assert judged.exit_code == 0, judged.output
    assert set(seen(b)) == {credential_key(B_SECRET)}  # `proctor judge` names its key too
