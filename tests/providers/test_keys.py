"""The key rule as a table (key_cases.json): models, named variables and the environment → the
variable each model's key is read from, or the refusal. One test walks every row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.providers.keys import KeySource, host_of, is_official, parse_key_env, plan_keys
from proctor.providers.registry import parse_model

CASES = json.loads(
    (Path(__file__).parent / "cases" / "key_cases.json").read_text(encoding="utf-8")
)


def _plan(row: dict[str, Any]) -> dict[str, KeySource]:
    targets = [parse_model(m).key_target(m) for m in row["models"]]
    return plan_keys(
        targets, row.get("named", {}), row["env"], check_set=row.get("check_set", True)
    )


def test_key_rule_table() -> None:
    rows = CASES["rows"]
    assert len({r["id"] for r in rows}) == len(rows)
    failures: list[str] = []
    for row in rows:
        try:
            got: dict[str, str | None] | str = {m: s.var for m, s in _plan(row).items()}
        except ConfigError as e:
            got = f"error: {e}"
        if "error" in row:
            if not (isinstance(got, str) and row["error"] in got):
                failures.append(f"{row['id']}: expected error {row['error']!r}, got {got!r}")
        elif got != row["expect"]:
            failures.append(f"{row['id']}: expected {row['expect']!r}, got {got!r}")
    assert not failures, f"{len(failures)} of {len(rows)} rows failed:\n" + "\n".join(failures)


def test_a_refusal_never_shows_a_value() -> None:
    env = {"PROCTOR_API_KEY": "sk-SECRET-shared", "K": "sk-SECRET-named"}
    for named in ({}, {"a": "K", "b": "K"}):
        row = {
            "models": ["openai-compat/a@http://127.0.0.1:8001/v1", "anthropic/b"],
            "named": named,
            "env": env,
        }
        with pytest.raises(ConfigError) as info:
            _plan(row)
        assert "SECRET" not in str(info.value)


def test_a_source_reads_only_its_variable() -> None:
    source = KeySource("m", "h:1", "A_KEY", "named")
    assert source.read({"A_KEY": "ka", "PROCTOR_API_KEY": "kp"}) == "ka"
    assert source.read({"PROCTOR_API_KEY": "kp"}) is None
    assert source.read({"A_KEY": ""}) is None
    assert KeySource("m", "h:1", None, "no key").read({"PROCTOR_API_KEY": "kp"}) is None


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:8000/v1", "127.0.0.1:8000"),
        ("http://Host.Example/v1", "host.example:80"),
        ("https://host.example/v1", "host.example:443"),
        ("https://host.example./v1", "host.example:443"),
        ("http://[::1]:9/v1", "::1:9"),
        ("http://u@host.example/v1", "u@host.example"),
        ("http://host.example:99999/v1", "host.example:99999"),
    ],
)
def test_host_of(url: str, host: str) -> None:
    assert host_of(url) == host


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (["a=A_KEY"], {"a": "A_KEY"}),
        ([" a = A_KEY "], {"a": "A_KEY"}),
        (["openai-compat/m@http://h/v1?x=1=_K2"], {"openai-compat/m@http://h/v1?x=1": "_K2"}),
        (["a=K", "a=K"], {"a": "K"}),
    ],
)
def test_parse_key_env(entries: list[str], expected: dict[str, str]) -> None:
    assert parse_key_env(entries) == expected


@pytest.mark.parametrize(
    ("entries", "fragment"),
    [
        (["a"], "expected MODEL=VAR"),
        (["=K"], "expected MODEL=VAR"),
        (["a="], "expected MODEL=VAR"),
        (["a=1K"], "expected MODEL=VAR"),
        (["a=sk-live-abc"], "expected MODEL=VAR"),  # a key pasted where its name belongs
        (["a=K", "a=L"], "two variables for 'a'"),
    ],
)
def test_parse_key_env_rejects(entries: list[str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        parse_key_env(entries)


@pytest.mark.parametrize(
    ("url", "official"),
    [
        ("https://api.openai.com/v1", True),
        ("https://api.openai.com", True),
        ("https://API.OPENAI.COM:443/v1/", True),
        ("http://api.openai.com/v1", False),
        ("https://api.openai.com@evil.example/v1", False),
        ("https://api.openai.com\\@evil.example/v1", False),
        ("https://api.openai.com/v1#@evil.example", False),
        ("https://api.openai.com/v1?u=@evil.example", False),
        ("https://x@api.openai.com/v1", False),
        ("https://api.openai.com:443@evil.example/v1", False),
        ("https://api.openai.com.evil.example/v1", False),
        ("https://api.openai.com./v1", False),
    ],
)
def test_official_host_only_in_plain_form(url: str, official: bool) -> None:
    # URLs a model string cannot carry (an @ splits it) are checked here at the URL level,
    # the layer that decides whether OPENAI_API_KEY may go
    assert is_official(url, host_of(url)) is official
